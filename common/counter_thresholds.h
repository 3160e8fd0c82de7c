// Warning thresholds for port error counters, shared by `rdmactl health`
// (absolute values) and the collector (per-report deltas); and the rate
// thresholds of the congestion counters, which are not errors.
//
// Contract: names are the sysfs counters/ file names; error values follow
// the InfiniBand diagnostics' suggested error thresholds. A counter not
// listed has no threshold. PortXmitWait (port_xmit_wait) counts the ticks a
// port had data to send and could not: congestion on a busy fabric, not a
// fault of the port, so it is not among the errors; its threshold is a rate
// (ticks per second over a report interval, DefaultCongestionThresholds),
// judged only where two readings give one.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace rdmascope {

using CounterThresholds = std::map<std::string, uint64_t>;

CounterThresholds DefaultCounterThresholds();
CounterThresholds DefaultCongestionThresholds();  // per second

}  // namespace rdmascope
