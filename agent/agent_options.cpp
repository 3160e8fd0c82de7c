#include "agent/agent_options.h"

#include <cerrno>
#include <cstdlib>

namespace rdmascope::agent {

const char kAgentUsage[] =
    "usage: rdmascope-agent [--responder-only] [--device DEV] [--control-port P]\n"
    "                       [--inject rnr|drop] [reporting options]\n"
    "\n"
    "Runs the probe responders: a UD echo QP on every active port of every RDMA\n"
    "device (or of DEV), and the TCP control port P (default 18610) where probers\n"
    "learn UD QPNs and set up RC connections; and, unless --responder-only, the\n"
    "reporting daemon (needs --collector). Stops on SIGINT or SIGTERM.\n"
    "\n"
    "  --responder-only     run the responders and nothing else\n"
    "  --probe-target [NAME=]HOST[:PORT]\n"
    "                       probe this agent over UD and RC every report interval\n"
    "                       (repeatable; reports name it NAME, default HOST)\n"
    "  --probe-device DEV   local device for probing (default: the only one)\n"
    "  --probe-port N       local port for probing (default 1)\n"
    "  --probe-count N      probes per transport per target per interval (default 10)\n"
    "  --device DEV         serve, and report the inventory and counters of, only this device\n"
    "  --control-port P     TCP control port (default 18610)\n"
    "  --inject rnr|drop    FAULT INJECTION FOR SELF-TESTS: rnr = never post RC\n"
    "                       receives (probers see RNR_RETRY_EXC_ERR); drop = receive\n"
    "                       UD probes but never echo them (probers see 100% loss).\n"
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
      o.responder.device = *v;
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
    } else if (k == "--probe-target") {
      auto v = need();
      if (!v.ok()) return v.status();
      auto t = probes::ParseProbeTarget(*v);
      if (!t.ok()) return t.status();
      o.probe_targets.push_back(*t);
    } else if (k == "--probe-device") {
      auto v = need();
      if (!v.ok()) return v.status();
      o.probe_device = *v;
    } else if (k == "--probe-port" || k == "--probe-count") {
      auto v = need();
      if (!v.ok()) return v.status();
      errno = 0;
      char* end = nullptr;
      long n = std::strtol(v->c_str(), &end, 10);
      const long max = k == "--probe-port" ? 255 : 10000;
      if (v->empty() || *end != '\0' || errno != 0 || n < 1 || n > max) {
        return Status::Error(k + " needs a number 1.." + std::to_string(max) + ", got '" + *v + "'");
      }
      if (k == "--probe-port") o.probe_port = int(n);
      else o.probe_count = uint64_t(n);
    } else if (k == "--inject") {
      auto v = need();
      if (!v.ok()) return v.status();
      if (*v == "rnr") {
        o.responder.inject = probes::Injection::kRnr;
      } else if (*v == "drop") {
        o.responder.inject = probes::Injection::kDrop;
      } else {
        return Status::Error("--inject must be rnr or drop, got '" + *v + "'");
      }
    } else {
      return Status::Error("unknown option " + k);
    }
  }
  return o;
}

}  // namespace rdmascope::agent
