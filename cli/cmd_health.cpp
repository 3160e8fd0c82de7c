// rdmactl health: a node health check with monitoring-plugin exit codes.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "agent/node/health.h"
#include "agent/node/health_state.h"
#include "agent/node/sysfs_parse.h"
#include "cli/commands.h"
#include "cli/inventory_source.h"
#include "cli/output_text.h"
#include "common/model_json.h"

namespace rdmascope::cli {
namespace {

constexpr char kHelp[] =
    "usage: rdmactl [--sysfs-root DIR] [--json] health [--port DEV[/PORT]]... [--threshold COUNTER=N]...\n"
    "               [--expect-rate GBPS] [--expect-width WIDTH] [--expect-mtu BYTES]\n"
    "               [--state-file FILE] [--require-devices]\n"
    "\n"
    "Checks every port of every RDMA device on this node (or the --port ones), as a\n"
    "monitoring plugin: one status line, performance data after '|'.\n"
    "  exit 0  OK: every port ACTIVE / LinkUp, every counter within its threshold\n"
    "  exit 1  WARNING: a counter above its threshold or saturated, a port state unreadable, or a\n"
    "          link below --expect-rate / --expect-width / --expect-mtu (degraded link)\n"
    "  exit 2  CRITICAL: a port not ACTIVE or not LinkUp\n"
    "  exit 3  UNKNOWN: the check cannot run (no SYSFS/class/infiniband, unreadable\n"
    "          sysfs root, a bad argument)\n"
    "\n"
    "Default warning thresholds (the InfiniBand diagnostics' suggested error thresholds,\n"
    "a value above the threshold warns):\n"
    "  symbol_error=10 link_error_recovery=10 link_downed=10 port_rcv_errors=10\n"
    "  port_rcv_remote_physical_errors=100 port_rcv_switch_relay_errors=100 port_xmit_discards=100\n"
    "  port_xmit_constraint_errors=100 port_rcv_constraint_errors=100 local_link_integrity_errors=10\n"
    "  excessive_buffer_overrun_errors=10 VL15_dropped=100\n"
    "port_xmit_wait (ticks a port waited to send) is congestion, not an error: the collector judges\n"
    "its rate (port_congested events); --threshold port_xmit_wait=N still sets an absolute one here.\n"
    "Counters are absolute values since the last reset; with --state-file FILE they are the\n"
    "increase since the previous run that wrote FILE (the first run writes it and compares\n"
    "absolute values), by each counter's width: a wrap counts modulo the width, a counter that\n"
    "was cleared, or whose device was re-created or host rebooted since, counts from 0. A\n"
    "saturated error counter (e.g. symbol_error at 65535) is a WARNING of its own: it counts\n"
    "no more errors until cleared. --threshold sets or overrides one, for any counter or hw_counter name\n"
    "(e.g. --threshold local_ack_timeout_err=100).\n"
    "--require-devices: no RDMA device at all is CRITICAL (default: OK, nothing to check).\n";

constexpr int kUnknown = 3;

int Usage(const std::string& what) {
  std::printf("RDMA UNKNOWN - %s (see rdmactl health --help)\n", what.c_str());
  return kUnknown;
}

// The check cannot run when the sysfs root or its infiniband class is missing
// or unreadable: that is not "no devices".
std::optional<std::string> CannotRun(const std::string& root) {
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "cannot run the check: sysfs root " + root + " is not a readable directory (--sysfs-root?)";
  const std::string cls = root + "/class/infiniband";
  if (::stat(cls.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "cannot run the check: " + cls + " missing (ib_core / ib_uverbs not loaded, or a wrong --sysfs-root)";
  if (::access(cls.c_str(), R_OK | X_OK) != 0) return "cannot run the check: " + cls + " unreadable";
  return std::nullopt;
}

// The previous run's state; nullopt (judge values, as a first run) when the
// file is missing, or unreadable or damaged (said on stderr).
std::optional<HealthState> ReadStateFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  auto state = ParseHealthState(text.str());
  if (!state.ok()) {
    std::fprintf(stderr, "warning: %s: %s; counters judged by their values this run\n", path.c_str(),
                 state.status().message().c_str());
    return std::nullopt;
  }
  return std::move(state).value();
}

// Written whole to FILE.tmp, then renamed: a reader never sees half a file.
bool WriteStateFile(const std::string& path, const HealthState& state) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return false;
    out << FormatHealthState(state);
    if (!out.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

int RunHealth(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  Thresholds thresholds = DefaultThresholds();
  HealthOptions options;
  bool require_devices = false;
  std::string state_file;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--threshold" && has_value) {
      Status s = ParseThresholdOverride(args[++i], &thresholds);
      if (!s.ok()) return Usage(s.message());
    } else if (a == "--port" && has_value) {
      std::pair<std::string, int> sel;
      Status s = ParsePortSelector(args[++i], &sel);
      if (!s.ok()) return Usage(s.message());
      options.ports.push_back(sel);
    } else if (a == "--expect-rate" && has_value) {
      char* end = nullptr;
      double v = std::strtod(args[++i].c_str(), &end);
      if (args[i].empty() || *end != '\0' || !(v > 0)) return Usage("--expect-rate needs Gb/s above 0, got " + args[i]);
      options.expect_rate_gbps = v;
    } else if (a == "--expect-width" && has_value) {
      options.expect_width = args[++i];
    } else if (a == "--expect-mtu" && has_value) {
      auto v = ParseU64(args[++i]);
      if (!v || *v == 0 || *v > 65536) return Usage("--expect-mtu needs bytes 1..65536, got " + args[i]);
      options.expect_mtu = uint32_t(*v);
    } else if (a == "--state-file" && has_value) {
      state_file = args[++i];
    } else if (a == "--require-devices") {
      require_devices = true;
    } else {
      return Usage("unexpected argument " + a);
    }
  }
  if (auto why = CannotRun(g.sysfs_root)) {
    if (g.json) {
      nlohmann::json j = {{"status", "UNKNOWN"}, {"exit_code", kUnknown}, {"message", *why}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("RDMA UNKNOWN - %s\n", why->c_str());
    }
    return kUnknown;
  }
  Inventory inv = LoadInventory(g, /*with_counters=*/true);
  PrintWarnings(stderr, inv);
  options.boot_id = ReadHostBootId();
  if (!state_file.empty()) options.previous = ReadStateFile(state_file);
  HealthReport r = EvaluateHealth(inv, thresholds, options);
  if (!options.ports.empty() && r.ports_checked == 0) {
    r.severity = Severity::kUnknown;
    r.findings.push_back({Severity::kUnknown, "", 0, "no port matches --port"});
  }
  if (inv.devices.empty() && require_devices) {
    r.severity = Severity::kCritical;
    r.findings.push_back({Severity::kCritical, "", 0, "no RDMA devices found"});
  }
  if (!state_file.empty() && !WriteStateFile(state_file, HealthStateOf(inv, options.boot_id)))
    std::fprintf(stderr, "rdmactl health: cannot write the state file %s\n", state_file.c_str());
  if (g.json) {
    nlohmann::json findings = nlohmann::json::array();
    for (const HealthFinding& f : r.findings)
      findings.push_back(
          {{"severity", SeverityName(f.severity)}, {"device", f.device}, {"port", f.port}, {"what", f.what}});
    nlohmann::json j = {{"status", SeverityName(r.severity)},
                        {"exit_code", static_cast<int>(r.severity)},
                        {"ports_checked", r.ports_checked},
                        {"findings", findings},
                        {"perfdata", r.perfdata},
                        {"warnings", inv.warnings}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::string perf = " | ports_checked=" + std::to_string(r.ports_checked) +
                       (r.perfdata.empty() ? "" : " " + Join(r.perfdata));
    if (inv.devices.empty() && !require_devices) {
      std::printf("RDMA OK - no RDMA devices found%s\n", perf.c_str());
    } else {
      std::printf("RDMA %s - %d port(s) checked, %zu finding(s)%s\n", SeverityName(r.severity), r.ports_checked,
                  r.findings.size(), perf.c_str());
    }
    for (const HealthFinding& f : r.findings) {
      if (f.device.empty())
        std::printf("  %s: %s\n", SeverityName(f.severity), f.what.c_str());
      else if (f.port == 0)  // the adapter itself (its PCIe link)
        std::printf("  %s: %s: %s\n", SeverityName(f.severity), f.device.c_str(), f.what.c_str());
      else
        std::printf("  %s: %s port %d: %s\n", SeverityName(f.severity), f.device.c_str(), f.port, f.what.c_str());
    }
  }
  return static_cast<int>(r.severity);
}

}  // namespace rdmascope::cli
