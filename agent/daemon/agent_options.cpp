#include "agent/daemon/agent_options.h"

#include "probes/control_auth.h"

#include <cerrno>
#include <cstdlib>

namespace rdmascope::agent {

const char kAgentUsage[] =
    "usage: rdmascope-agent [--responder-only] [--device DEV]... [--rail NAME=DEV[/PORT]]...\n"
    "                       [--control-port P] [--control-bind ADDR]... [--inject FAULT]\n"
    "                       [reporting options]\n"
    "\n"
    "Serves and probes every port of every RDMA device (a rail each), or of the\n"
    "--device ones: a UD echo QP on every ACTIVE port, the TCP control port P\n"
    "(default 18610) where probers learn UD QPNs and set up RC connections, and,\n"
    "unless --responder-only, the reporting daemon (needs --collector). Rails are\n"
    "matched across nodes by name: by default a port's position in the sorted\n"
    "list of probed (device, port) pairs (0, 1, ...) when the agent first saw\n"
    "it; a name is kept while the agent runs, so a device that appears late takes\n"
    "the next free number and renames no other rail (logged). Each rail probes\n"
    "the same rail of its peers. Ports going down, devices vanishing and coming back are\n"
    "reported, never fatal. Stops on SIGINT or SIGTERM.\n"
    "\n"
    "  --responder-only     run the responders and nothing else\n"
    "  --device DEV         serve, probe and report only this device (repeatable; key: devices)\n"
    "  --rail NAME=DEV[/PORT]\n"
    "                       name the rail on DEV port PORT (default 1) (repeatable; key: rails)\n"
    "  --probe-target [NAME=]HOST[:PORT]\n"
    "                       probe this agent over UD and RC every report interval\n"
    "                       (repeatable; key: probe_targets; default: the collector's pinglist)\n"
    "  --probe-count N      probes per transport per target per interval (default 10; key: probe_count)\n"
    "  --control-port P     TCP control port (default 18610)\n"
    "  --control-secret-file FILE\n"
    "                       fleet secret: control connections must prove it (HMAC-SHA256\n"
    "                       over both sides' nonces, each side proves it) before ud_info or rc_connect\n"
    "  --control-secret-mode strict|lenient\n"
    "                       strict (default): refuse peers without the secret; lenient: serve them\n"
    "                       too (while rolling out a secret or upgrading from protocol v1)\n"
    "  --control-bind ADDR  listen on this numeric address (repeatable; each must bind). Default:\n"
    "                       the RoCE IPv4 addresses of every --device's ports (or every device's),\n"
    "                       any that cannot be bound said and left out; every address when\n"
    "                       there is none\n"
    "  --rc-idle-timeout S  an RC session with no probe for S seconds ends (default 60; 5..86400);\n"
    "                       at the session cap, one idle for a quarter of that gives way\n"
    "  --rc-max-sessions N  RC sessions at once on each served device (default 4096; 1..1000000)\n"
    "  --inject rnr|drop|ud-send-error|ud-cq-overrun\n"
    "                       FAULT INJECTION FOR SELF-TESTS: rnr = never post RC\n"
    "                       receives (probers see RNR_RETRY_EXC_ERR); drop = receive\n"
    "                       UD probes but never echo them (probers see 100% loss);\n"
    "                       ud-send-error = each UD responder's 10th echo fails (a bad\n"
    "                       key), its QP leaves RTS and must recover (one event in the report);\n"
    "                       ud-cq-overrun = each port's UD responder leaves its (small) CQ\n"
    "                       unpolled for 500 ms once 10 probes came within 100 ms (a\n"
    "                       prober's burst, e.g. rdmactl probe's): the CQ overruns, the\n"
    "                       device raises CQ_ERR and the responder is built again with a\n"
    "                       new QPN (events in the report).\n"
    "                       Use it to prove alerting end to end, never in production.\n"
    "  --version            the version and the git revision of this build\n";

Result<AgentOptions> ParseAgentOptions(const std::vector<std::string>& args) {
  AgentOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& k = args[i];
    auto need = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return Status::Error(k + " needs a value");
      return args[++i];
    };
    if (k == "-h" || k == "--help") {
      o.help = true;
    } else if (k == "--responder-only") {
      o.responder_only = true;
    } else if (k == "--device") {
      auto v = need();
      if (!v.ok()) return v.status();
      o.responder.devices.push_back(*v);
      o.devices.push_back(*v);
    } else if (k == "--rail") {
      auto v = need();
      if (!v.ok()) return v.status();
      auto r = ParseRailSpec(*v);
      if (!r.ok()) return r.status();
      o.rails.push_back(*r);
      Status valid = ValidateRails(o.rails);
      if (!valid.ok()) return valid;
    } else if (k == "--control-port") {
      auto v = need();
      if (!v.ok()) return v.status();
      errno = 0;
      char* end = nullptr;
      long p = std::strtol(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || errno != 0 || p < 1 || p > 65535) {
        return Status::Error("--control-port needs a TCP port 1..65535, got '" + *v + "'");
      }
      o.responder.control_port = int(p);
    } else if (k == "--control-bind") {
      auto v = need();
      if (!v.ok()) return v.status();
      o.responder.control_bind.push_back(*v);
    } else if (k == "--control-secret-file") {
      auto v = need();
      if (!v.ok()) return v.status();
      auto secret = probes::ReadSecretFile(*v);
      if (!secret.ok()) return secret.status();
      o.responder.control_secret = *secret;
    } else if (k == "--control-secret-mode") {
      auto v = need();
      if (!v.ok()) return v.status();
      if (*v != "strict" && *v != "lenient") {
        return Status::Error("--control-secret-mode needs strict or lenient, got '" + *v + "'");
      }
      o.responder.control_strict = *v == "strict";
    } else if (k == "--probe-target") {
      auto v = need();
      if (!v.ok()) return v.status();
      auto t = probes::ParseProbeTarget(*v);
      if (!t.ok()) return t.status();
      o.probe_targets.push_back(*t);
    } else if (k == "--rc-idle-timeout" || k == "--rc-max-sessions") {
      auto v = need();
      if (!v.ok()) return v.status();
      const bool idle = k == "--rc-idle-timeout";
      const long lo = idle ? 5 : 1, hi = idle ? 86400 : 1000000;
      errno = 0;
      char* end = nullptr;
      long n = std::strtol(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || errno != 0 || n < lo || n > hi) {
        return Status::Error(k + " needs a whole number " + std::to_string(lo) + ".." + std::to_string(hi) +
                             ", got '" + *v + "'");
      }
      if (idle) {
        o.responder.rc_limits.idle_ns = uint64_t(n) * 1000000000ull;
        o.responder.rc_limits.evict_min_idle_ns = o.responder.rc_limits.idle_ns / 4;
      } else {
        o.responder.rc_limits.cap = size_t(n);
      }
    } else if (k == "--inject") {
      auto v = need();
      if (!v.ok()) return v.status();
      if (*v == "rnr") {
        o.responder.inject = probes::Injection::kRnr;
      } else if (*v == "drop") {
        o.responder.inject = probes::Injection::kDrop;
      } else if (*v == "ud-send-error") {
        o.responder.inject = probes::Injection::kUdSendError;
      } else if (*v == "ud-cq-overrun") {
        o.responder.inject = probes::Injection::kUdCqOverrun;
      } else {
        return Status::Error("--inject must be rnr, drop, ud-send-error or ud-cq-overrun, got '" + *v + "'");
      }
    } else {
      return Status::Error("unknown option " + k);
    }
  }
  return o;
}

}  // namespace rdmascope::agent
