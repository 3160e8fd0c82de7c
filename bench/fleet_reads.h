// The fleet load tool's reads: /metrics, /api/v1/matrix and a pinglist timed
// against the collector as the fleet left it, each checked against the rows
// the fleet implies.
#pragma once

#include "bench/fleet_args.h"
#include "collector/store/storage.h"

namespace rdmascope::collector::bench {

// Reads the three answers (best of three each) and prints them; false when
// one failed or its row count is not what the fleet implies.
bool MeasureReads(int port, Storage& store, const FleetArgs& a, const char* when);

}  // namespace rdmascope::collector::bench
