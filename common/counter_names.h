// The port counter names the project knows: the sysfs counters/ files (the
// InfiniBand PortCounters and PortCountersExtended set) and the hw_counters/
// files of the in-tree RDMA drivers. /metrics exports only these as series, so
// what a node sends cannot grow the number of series.
//
// Contract: kind is "counters" or "hw_counters"; a name is known when it is
// listed for that kind (exact, case-sensitive). Any other kind knows nothing.
#pragma once

#include <string_view>

namespace rdmascope {

bool IsKnownCounterName(std::string_view kind, std::string_view name);

}  // namespace rdmascope
