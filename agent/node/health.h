// Node health verdict from an inventory with counters, for `rdmactl health`.
//
// Contract: severity follows monitoring-plugin exit codes. A port not ACTIVE
// (or not LinkUp) is critical (2); a counter above its warning threshold
// (compared with '>', as the InfiniBand diagnostics do), a port whose state
// cannot be read, or a link below an expected rate / width / MTU is a warning
// (1); otherwise ok (0). UNKNOWN (3) is the caller's: the check could not run.
// Absent counters are never compared (absent is not 0). With `previous`
// counters (a state file of the last run, agent/node/health_state.h) a
// counter is judged by its increase since then, as the counter rules
// (common/counter_rules.h) compute it: per-counter width, a wrap taken
// modulo the width, a clear or a new boot id or device instance counting
// from 0; a counter the previous run did not have is judged by its value.
// A saturating counter at its maximum is a warning of its own, with or
// without a state file and whatever its threshold: it counts no more errors,
// so "no increase" says nothing until it is cleared.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "agent/node/health_state.h"
#include "common/counter_thresholds.h"
#include "common/model.h"
#include "common/status.h"

namespace rdmascope {

enum class Severity { kOk = 0, kWarning = 1, kCritical = 2, kUnknown = 3 };

struct HealthFinding {
  Severity severity = Severity::kOk;
  std::string device;
  int port = 0;
  std::string what;  // "symbol_error 42 >= 10", "state DOWN (phys Disabled)"
};

struct HealthReport {
  Severity severity = Severity::kOk;
  int ports_checked = 0;
  std::vector<HealthFinding> findings;
  // Nagios performance data: "'label'=value[UOM];[warn];[crit];[min];[max]" items.
  std::vector<std::string> perfdata;
};

// Which ports to check and what a healthy link looks like.
struct HealthOptions {
  // DEV or DEV/PORT selectors; empty: every port.
  std::vector<std::pair<std::string, int>> ports;  // port 0: every port of DEV
  std::optional<double> expect_rate_gbps;
  std::optional<std::string> expect_width;  // "4X"
  std::optional<uint32_t> expect_mtu;       // bytes
  // The previous run's counters, boot id and device instances; set: compare increases.
  std::optional<HealthState> previous;
  std::string boot_id;  // this run's boot id ("" = unknown), compared with previous->boot_id
};

// "DEV" or "DEV/PORT" -> selector; errors name the text.
Status ParsePortSelector(const std::string& text, std::pair<std::string, int>* out);

// Warning thresholds by sysfs counter name (counters or hw_counters).
using Thresholds = CounterThresholds;

// The suggested error thresholds of the InfiniBand diagnostics tools, mapped
// to sysfs counter names (common/counter_thresholds.h).
Thresholds DefaultThresholds();

// "symbol_error=20" sets one threshold; errors name the bad text.
Status ParseThresholdOverride(const std::string& text, Thresholds* thresholds);

HealthReport EvaluateHealth(const Inventory& inv, const Thresholds& thresholds, const HealthOptions& options = {});

const char* SeverityName(Severity s);  // "OK", "WARNING", "CRITICAL", "UNKNOWN"

}  // namespace rdmascope
