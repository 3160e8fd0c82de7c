// Warning thresholds for port error counters, shared by `rdmactl health`
// (absolute values) and the collector (per-report deltas).
//
// Contract: names are the sysfs counters/ file names; values follow the
// InfiniBand diagnostics' suggested error thresholds. A counter not listed
// has no threshold.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace rdmascope {

using CounterThresholds = std::map<std::string, uint64_t>;

CounterThresholds DefaultCounterThresholds();

}  // namespace rdmascope
