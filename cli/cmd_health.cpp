// rdmactl health: a node health check with monitoring-plugin exit codes.
#include <cstdio>

#include "agent/health.h"
#include "cli/commands.h"
#include "cli/inventory_source.h"
#include "cli/output_text.h"
#include "common/model_json.h"

namespace rdmascope::cli {
namespace {

constexpr char kHelp[] =
    "usage: rdmactl [--sysfs-root DIR] [--json] health [--threshold COUNTER=N]... [--require-devices]\n"
    "\n"
    "Checks every port of every RDMA device on this node.\n"
    "  exit 0  OK: every port ACTIVE / LinkUp, every counter under its threshold\n"
    "  exit 1  WARNING: a counter at or above its warning threshold, or a port state unreadable\n"
    "  exit 2  CRITICAL: a port not ACTIVE or not LinkUp (or a bad argument)\n"
    "\n"
    "Default warning thresholds (the InfiniBand diagnostics' suggested error thresholds):\n"
    "  symbol_error=10 link_error_recovery=10 link_downed=10 port_rcv_errors=10\n"
    "  port_rcv_remote_physical_errors=100 port_rcv_switch_relay_errors=100 port_xmit_discards=100\n"
    "  port_xmit_constraint_errors=100 port_rcv_constraint_errors=100 local_link_integrity_errors=10\n"
    "  excessive_buffer_overrun_errors=10 VL15_dropped=100 port_xmit_wait=1000\n"
    "Counters are absolute values since the last reset. --threshold sets or overrides one, for any\n"
    "counter or hw_counter name (e.g. --threshold local_ack_timeout_err=100).\n"
    "--require-devices: no RDMA device at all is CRITICAL (default: OK, nothing to check).\n";

}  // namespace

int RunHealth(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  Thresholds thresholds = DefaultThresholds();
  bool require_devices = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--threshold" && i + 1 < args.size()) {
      Status s = ParseThresholdOverride(args[++i], &thresholds);
      if (!s.ok()) {
        std::fprintf(stderr, "rdmactl health: %s\n", s.message().c_str());
        return 2;
      }
    } else if (args[i] == "--require-devices") {
      require_devices = true;
    } else {
      std::fprintf(stderr, "rdmactl health: unexpected argument %s (see rdmactl health --help)\n", args[i].c_str());
      return 2;
    }
  }
  Inventory inv = LoadInventory(g, /*with_counters=*/true);
  PrintWarnings(stderr, inv);
  HealthReport r = EvaluateHealth(inv, thresholds);
  if (inv.devices.empty() && require_devices) {
    r.severity = Severity::kCritical;
    r.findings.push_back({Severity::kCritical, "", 0, "no RDMA devices found"});
  }
  if (g.json) {
    nlohmann::json findings = nlohmann::json::array();
    for (const HealthFinding& f : r.findings)
      findings.push_back(
          {{"severity", SeverityName(f.severity)}, {"device", f.device}, {"port", f.port}, {"what", f.what}});
    nlohmann::json j = {{"status", SeverityName(r.severity)},
                        {"exit_code", static_cast<int>(r.severity)},
                        {"ports_checked", r.ports_checked},
                        {"findings", findings},
                        {"warnings", inv.warnings}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    if (inv.devices.empty() && !require_devices) {
      std::printf("RDMA OK - no RDMA devices found\n");
    } else {
      std::printf("RDMA %s - %d port(s) checked, %zu finding(s)\n", SeverityName(r.severity), r.ports_checked,
                  r.findings.size());
    }
    for (const HealthFinding& f : r.findings) {
      if (f.device.empty())
        std::printf("  %s: %s\n", SeverityName(f.severity), f.what.c_str());
      else
        std::printf("  %s: %s port %d: %s\n", SeverityName(f.severity), f.device.c_str(), f.port, f.what.c_str());
    }
  }
  return static_cast<int>(r.severity);
}

}  // namespace rdmascope::cli
