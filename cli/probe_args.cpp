#include "cli/probe_args.h"

#include "probes/control_auth.h"

#include <cerrno>
#include <cstdlib>

namespace rdmascope::cli {

const char kProbeHelp[] =
    "usage: rdmactl probe --transport rc|ud --device DEV [--port N] [--gid-index I | --gid-subnet NET]\n"
    "                     [--probe-traffic-class TC] [--probe-sl SL]\n"
    "                     HOST[:PORT] [--count N] [--interval-ms M] [--burst B] [--timeout-ms T] [--json]\n"
    "\n"
    "Probes one peer rdmascope-agent now with real RDMA traffic and prints RTT\n"
    "statistics in microseconds (t_min, t_typical = median, t_avg, p99, p99.9),\n"
    "loss, and every failed work completion with its explanation.\n"
    "\n"
    "  --transport rc|ud    RC: SEND/RECV ping-pong + RDMA READ; UD: echo (default ud)\n"
    "  --device DEV         local RDMA device (default: the only one, if there is one)\n"
    "  --port N             local port (default 1)\n"
    "  --gid-index I        local GID index 0..255 (default: the RoCE v2 IPv4-mapped GID)\n"
    "  --gid-subnet A.B.C.D/N\n"
    "                       use the local RoCE v2 GID whose IPv4 address lies in this subnet\n"
    "                       (instead of --gid-index; an error lists the port's GIDs if none does)\n"
    "  --probe-traffic-class TC\n"
    "                       traffic class 0..255 of every probe: the GRH traffic class, on\n"
    "                       RoCE v2 the IP TOS byte = DSCP x 4 + ECN (DSCP 26 -> 104); use the\n"
    "                       lossless class of the workload (default 0). RC: the peer's echoes\n"
    "                       and ACKs use it too; UD: echoes copy the probe's TOS\n"
    "  --probe-sl SL        InfiniBand service level 0..15 of every probe (default 0)\n"
    "  HOST[:PORT]          the peer agent and its control port (default 18610)\n"
    "  --count N            probes to send (default 100)\n"
    "  --interval-ms M      average time between probe starts (default 10; 0 = back to back)\n"
    "  --burst B            probes per burst (default 10; 1..1000): a burst leaves every B x M ms;\n"
    "                       its first probe (the primer) wakes the peer's responder and is\n"
    "                       shown apart as cold RTT, the others leave each right after the\n"
    "                       previous one, while the responder is still polling, so the RTT\n"
    "                       figures measure the path and not a wake-up. Every probe counts for\n"
    "                       loss. 1 = no bursts: each probe on its own pays the wake-up\n"
    "  --timeout-ms T       per-probe deadline (default 1000)\n"
    "  --duration-s S       stop after S seconds whatever the count (default 600)\n"
    "  --rc-timeout V       RC local ACK timeout exponent 0..31 (default 12 = 16.8 ms)\n"
    "  --retry-cnt V        RC transport retries 0..7 (default 6; rdma_rxe retries forever at 7)\n"
    "  --rnr-retry V        RC RNR retries 0..6 (default 3)\n"
    "  --min-rnr-timer V    RC min RNR NAK timer code 0..31 (default 12 = 0.64 ms)\n"
    "  --no-read            RC: skip the RDMA READ\n"
    "  --control-secret-file FILE  authenticate to the peer's control port with this secret\n"
    "  --spin-us U          busy-poll budget per wait: spin 3 x typical RTT, at most U; sleep\n"
    "                       at once when the RTT is over U (default 2000; 0 = always sleep)\n"
    "  --test-bad-rkey      SELF-TEST ONLY: RDMA READ with a wrong rkey; the peer must\n"
    "                       answer REM_ACCESS_ERR (10). Proves error reporting end to end.\n"
    "  --json               machine-readable output\n"
    "\n"
    "Errors are also printed on stderr as they happen.\n"
    "exit codes: 0 all probes answered, 1 loss without errors, 2 any error\n";

namespace {

Status ParseNumber(const std::string& opt, const std::string& text, long long lo, long long hi,
                   long long* out) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) {
    return Status::Error(opt + " needs a number in " + std::to_string(lo) + ".." + std::to_string(hi) +
                         ", got '" + text + "'");
  }
  *out = v;
  return Status::Ok();
}

}  // namespace

Result<ProbeArgs> ParseProbeArgs(const std::vector<std::string>& args) {
  ProbeArgs a;
  a.options.count = 100;
  a.options.burst = kDefaultProbeBurst;
  probes::ProbePathSettings path;  // --gid-index, --gid-subnet, --probe-traffic-class, --probe-sl
  bool have_host = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& k = args[i];
    auto value = [&](std::string* out) -> Status {
      if (i + 1 >= args.size()) return Status::Error(k + " needs a value");
      *out = args[++i];
      return Status::Ok();
    };
    auto number = [&](long long lo, long long hi, long long* out) -> Status {
      std::string v;
      Status s = value(&v);
      if (!s.ok()) return s;
      return ParseNumber(k, v, lo, hi, out);
    };
    long long n = 0;
    Status s;
    if (k == "--transport") {
      s = value(&a.transport);
      if (s.ok() && a.transport != "rc" && a.transport != "ud") s = Status::Error("--transport must be rc or ud");
    } else if (k == "--device") {
      s = value(&a.options.device);
    } else if (k == "--port") {
      if ((s = number(1, 255, &n)).ok()) a.options.port = int(n);
    } else if (k.size() > 2 && k.rfind("--", 0) == 0 && probes::IsProbePathSetting(k.substr(2))) {
      std::string v;
      if ((s = value(&v)).ok()) s = probes::ApplyProbePathSetting(k.substr(2), v, &path);
      if (!s.ok()) s = Status::Error(k + ": " + s.message());
    } else if (k == "--count") {
      if ((s = number(1, 100000000, &n)).ok()) a.options.count = uint64_t(n);
    } else if (k == "--burst") {
      if ((s = number(1, 1000, &n)).ok()) a.options.burst = uint64_t(n);
    } else if (k == "--interval-ms") {
      if ((s = number(0, 3600000, &n)).ok()) a.options.interval_ms = uint64_t(n);
    } else if (k == "--timeout-ms") {
      if ((s = number(1, 600000, &n)).ok()) a.options.timeout_ms = uint64_t(n);
    } else if (k == "--duration-s") {
      if ((s = number(1, 86400, &n)).ok()) a.options.max_duration_ms = uint64_t(n) * 1000;
    } else if (k == "--rc-timeout") {
      if ((s = number(0, 31, &n)).ok()) a.options.tuning.timeout = int(n);
    } else if (k == "--retry-cnt") {
      if ((s = number(0, 7, &n)).ok()) a.options.tuning.retry_cnt = int(n);
    } else if (k == "--rnr-retry") {
      if ((s = number(0, 6, &n)).ok()) a.options.tuning.rnr_retry = int(n);
    } else if (k == "--min-rnr-timer") {
      if ((s = number(0, 31, &n)).ok()) a.options.tuning.min_rnr_timer = int(n);
    } else if (k == "--spin-us") {
      if ((s = number(0, 10000000, &n)).ok()) a.options.spin_ns = uint64_t(n) * 1000;
    } else if (k == "--control-secret-file") {
      std::string path;
      if ((s = value(&path)).ok()) {
        auto secret = probes::ReadSecretFile(path);
        if (secret.ok()) a.options.control_secret = *secret;
        else s = secret.status();
      }
    } else if (k == "--no-read") {
      a.options.rc_read = false;
    } else if (k == "--reconnect-each-probe") {
      a.options.reconnect_each_probe = true;
    } else if (k == "--test-bad-rkey") {
      a.options.test_bad_rkey = true;
    } else if (k == "--json") {
      a.json = true;
    } else if (!k.empty() && k[0] == '-') {
      s = Status::Error("unknown option " + k);
    } else if (have_host) {
      s = Status::Error("only one HOST may be given (got '" + a.options.host + "' and '" + k + "')");
    } else {
      have_host = true;
      a.options.host = k;
      auto colon = k.rfind(':');
      if (colon != std::string::npos && k.find(':') == colon) {  // HOST:PORT (not a bare IPv6)
        a.options.host = k.substr(0, colon);
        if ((s = ParseNumber("HOST:PORT", k.substr(colon + 1), 1, 65535, &n)).ok()) a.options.control_port = int(n);
      }
    }
    if (!s.ok()) return s;
  }
  if (!have_host || a.options.host.empty()) return Status::Error("missing HOST (the peer agent)");
  if (path.gid_index && path.gid_subnet) return Status::Error("give --gid-index or --gid-subnet, not both");
  probes::ApplyProbePath(path, &a.options);
  if (a.options.reconnect_each_probe && a.transport != "rc") return Status::Error("--reconnect-each-probe needs --transport rc");
  if (a.options.test_bad_rkey && a.transport != "rc") return Status::Error("--test-bad-rkey needs --transport rc");
  return a;
}

}  // namespace rdmascope::cli
