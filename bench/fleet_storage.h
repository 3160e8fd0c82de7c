// What a fleet's history costs on disk at a retention policy, measured from a
// collector database after a load run (bench/collector_fleet_load.cpp).
//
// Contract: reads the database's own page accounting (SQLite's dbstat), so the
// figures are bytes of pages, indexes included, free pages excluded. The raw
// tables' bytes are divided by the simulated time they cover; the rollups' by
// the periods they hold, so the steady-state footprint per node is
//   raw/node/h x raw hours + report ids/node/h x minute-rollup hours
//   + minute rollup/node/min x minutes kept + hourly rollup/node/h x hours kept.
#pragma once

#include <cstdint>
#include <string>

#include "collector/store/storage.h"

namespace rdmascope::collector::bench {

struct FleetStorage {
  bool ok = false;
  std::string error;
  double raw_bytes = 0, ids_bytes = 0, minute_bytes = 0, hour_bytes = 0, other_bytes = 0;
  int64_t minutes = 0, hours = 0;  // distinct periods the rollups hold
  double raw_per_node_hour = 0, ids_per_node_hour = 0, minute_per_node_minute = 0, hour_per_node_hour = 0;
  // At the policy's ages: raw rows, minute rollups with report ids, hourly
  // rollups, and their sum.
  double raw_part = 0, minute_part = 0, hour_part = 0, steady_per_node = 0;
};

FleetStorage MeasureFleetStorage(const std::string& db_path, int nodes, double simulated_s,
                                 const collector::RetentionPolicy& policy);

// Prints the figures and the verdict against budget_bytes per node.
void PrintFleetStorage(const FleetStorage& s, const collector::RetentionPolicy& policy, double budget_bytes);

}  // namespace rdmascope::collector::bench
