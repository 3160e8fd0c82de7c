// What a fleet's history costs on disk at a retention policy, measured from a
// collector database after a load run (bench/collector_fleet_load.cpp; on
// PostgreSQL, fleet_storage_pg.h).
//
// Contract: the bytes come from the database's own accounting (SQLite's
// dbstat: bytes of pages, indexes included, free pages excluded), by table
// or index name. FleetStorageFrom() sorts them into raw history, report ids,
// minute and hourly rollups and the rest; the raw tables' bytes are divided
// by the simulated time they cover, the rollups' by the periods they hold,
// so the steady-state footprint per node is
//   raw/node/h x raw hours + report ids/node/h x minute-rollup hours
//   + minute rollup/node/min x minutes kept + hourly rollup/node/h x hours kept.
// RollUpWhatIsLeft() first rolls what a running collector would roll once the
// last minutes have closed, so that the rollups hold the whole run.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "collector/store/storage.h"

namespace rdmascope::collector::bench {

// What a node's retained history may cost (the fleet load tools' verdict).
constexpr double kFleetBudgetBytesPerNodeDay = 50.0 * 1024 * 1024;

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

// The distinct minutes and hours the rollups hold: one row, two integers (either engine).
extern const char* const kPeriodsSql;

// bytes: per table or index name; minutes, hours: the distinct periods the
// minute and hourly rollups hold.
FleetStorage FleetStorageFrom(const std::map<std::string, double>& bytes, int64_t minutes, int64_t hours, int nodes,
                              double simulated_s, const collector::RetentionPolicy& policy);
// The SQLite database at db_path.
FleetStorage MeasureFleetStorage(const std::string& db_path, int nodes, double simulated_s,
                                 const collector::RetentionPolicy& policy);

// Rolls what is left as the retention worker will once the grace has passed
// and the last ten minutes have closed (the hour in progress reaches
// probe_hourly ten minutes at a time), printing the steps' count and times.
// False (and printed) when a step failed.
bool RollUpWhatIsLeft(collector::Storage& store, const collector::RetentionPolicy& policy, int64_t sim_now, int nodes);

// Prints the figures and the verdict against budget_bytes per node.
void PrintFleetStorage(const FleetStorage& s, const collector::RetentionPolicy& policy, double budget_bytes);

}  // namespace rdmascope::collector::bench
