// The PostgreSQL schema's numbered migrations (schemas/postgres/NNNN_*.sql),
// and the day partitions of its raw history: the second backend's
// counterpart of store_migrate.h.
//
// Contract:
//  - ApplyPgMigrations applies what is missing as ApplyMigrations does
//    (store_migrate.h): ascending versions, each in its own transaction,
//    each inserting its version (checked), versions present skipped, a
//    database newer than the binary refused. Several collectors share one
//    database, so it runs under a session advisory lock (kPgMigrationLock):
//    collectors starting together apply each migration once; the others
//    wait for the lock and then find nothing to do.
//  - EnsurePartitions(db, from_ms, days) makes the day partitions (UTC days)
//    of every partitioned table from the day of from_ms through `days` days
//    after it that are missing, moving that day's rows out of the DEFAULT
//    partition; DropPartitionsBefore(db, before_ms) drops the day partitions
//    that end at or before before_ms. Both return how many partitions they
//    made or dropped, and run under the same lock (two collectors never make
//    the same day).
//  - PartitionsOf(db, table): the table's day partitions, oldest first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collector/store/pg_db.h"
#include "collector/store/pg_locks.h"
#include "collector/store/pg_migrations_embedded.h"

namespace rdmascope::collector {


// The migrations built into this binary (schemas/postgres/*.sql).
std::vector<EmbeddedMigration> BuiltinPgMigrations();

// Applies what is missing; returns the resulting schema version.
Result<int> ApplyPgMigrations(PgDb& db, const std::vector<EmbeddedMigration>& migrations);
// The highest version in schema_version, 0 for a database without one.
Result<int> PgSchemaVersion(PgDb& db);

Result<int> EnsurePartitions(PgDb& db, int64_t from_ms, int days);
Result<int> DropPartitionsBefore(PgDb& db, int64_t before_ms);
Result<std::vector<std::string>> PartitionsOf(PgDb& db, const std::string& table);

}  // namespace rdmascope::collector
