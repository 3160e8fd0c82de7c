// PostgreSQL's advisory locks the collectors sharing one database take, and
// how the store objects take them through SqlConn (no libpq needed here).
#pragma once

#include <cstdint>

namespace rdmascope::collector {

// pg_advisory_lock's key for schema changes (migrations, day partitions made
// or dropped): "rdmascop" in ASCII.
inline constexpr int64_t kPgMigrationLock = 0x72646d6173636f70;
// The same lock held to the end of the transaction that takes it.
inline constexpr char kPgSchemaXactLockSql[] = "SELECT pg_advisory_xact_lock(8242833483310002032)";
static_assert(kPgMigrationLock == 8242833483310002032, "kPgSchemaXactLockSql names kPgMigrationLock");

// The days ahead of today whose partitions exist (made at open and by retention).
inline constexpr int kPgPartitionDaysAhead = 2;

}  // namespace rdmascope::collector
