// What a fleet's history costs on PostgreSQL at a retention policy: the
// figures of fleet_storage.h, from the server's own accounting.
//
// Contract: a table's bytes are pg_total_relation_size (heap, indexes and
// TOAST), summed over its partitions when it is partitioned, for every table
// the connection's search path sees; then FleetStorageFrom(). Run it after the load has
// stopped and RollUpWhatIsLeft(): dead rows are counted until vacuumed.
#pragma once

#include <string>

#include "bench/fleet_storage.h"
#include "collector/store/pg_db.h"

namespace rdmascope::collector::bench {

// Prints table's partitions (name and rows), a line each, under a heading
// that says `when`; false (and printed) when they cannot be read.
bool PrintPartitions(collector::PgDb& db, const std::string& table, const std::string& when);

FleetStorage MeasureFleetStoragePg(collector::PgDb& db, int nodes, double simulated_s,
                                   const collector::RetentionPolicy& policy);

}  // namespace rdmascope::collector::bench
