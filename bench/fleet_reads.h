// The fleet load tool's reads: /metrics, /api/v1/matrix and a pinglist timed
// against the collector as the fleet left it, each checked against the rows
// the fleet implies.
#pragma once

#include "bench/fleet_args.h"
#include <cstdint>
#include <string>

namespace rdmascope::collector::bench {

// Reads the three answers (best of three each) and prints them; false when
// one failed or its row count is not what the fleet implies. history_rows:
// the probe summaries stored, as the caller counted them (-1: unknown).
bool MeasureReads(int port, int64_t history_rows, const FleetArgs& a, const char* when);

// Whether the collector at port leads (its /metrics' rdmascope_collector_leader):
// "leads", "follows", or what kept it from saying.
std::string LeaderOf(int port);

}  // namespace rdmascope::collector::bench
