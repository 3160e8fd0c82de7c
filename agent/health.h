// Node health verdict from an inventory with counters, for `rdmactl health`.
//
// Contract: severity follows monitoring-plugin exit codes. A port not ACTIVE
// (or not LinkUp) is critical (2); a counter at or above its warning threshold,
// or a port whose state cannot be read, is a warning (1); otherwise ok (0).
// Absent counters are never compared (absent is not 0).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/counter_thresholds.h"
#include "common/model.h"
#include "common/status.h"

namespace rdmascope {

enum class Severity { kOk = 0, kWarning = 1, kCritical = 2 };

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
};

// Warning thresholds by sysfs counter name (counters or hw_counters).
using Thresholds = CounterThresholds;

// The suggested error thresholds of the InfiniBand diagnostics tools, mapped
// to sysfs counter names (common/counter_thresholds.h).
Thresholds DefaultThresholds();

// "symbol_error=20" sets one threshold; errors name the bad text.
Status ParseThresholdOverride(const std::string& text, Thresholds* thresholds);

HealthReport EvaluateHealth(const Inventory& inv, const Thresholds& thresholds);

const char* SeverityName(Severity s);  // "OK", "WARNING", "CRITICAL"

}  // namespace rdmascope
