// Counter warning thresholds the collector applies to per-report counter
// deltas: the shared table of common/counter_thresholds.h.
#pragma once

#include "common/counter_thresholds.h"

namespace rdmascope::collector {

using rdmascope::CounterThresholds;
using rdmascope::DefaultCounterThresholds;

}  // namespace rdmascope::collector
