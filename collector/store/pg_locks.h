// PostgreSQL's advisory locks the collectors sharing one database take, and
// how the store objects take them through SqlConn (no libpq needed here).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdmascope::collector {

// pg_advisory_lock's key for schema changes (migrations, day partitions made
// or dropped): "rdmascop" in ASCII.
inline constexpr int64_t kPgMigrationLock = 0x72646d6173636f70;
// The same lock held to the end of the transaction that takes it.
inline constexpr char kPgSchemaXactLockSql[] = "SELECT pg_advisory_xact_lock(8242833483310002032)";
static_assert(kPgMigrationLock == 8242833483310002032, "kPgSchemaXactLockSql names kPgMigrationLock");

// pg_try_advisory_lock's key for leadership (pg_leadership.h): the session
// holding it runs diagnosis, rollups and retention; "rdmalead" in ASCII.
inline constexpr int64_t kPgLeaderLock = 0x72646d616c656164;

// The rollup marks every collector shares: a writer's transaction holds this
// lock shared while it finds which summaries are late for the marks (rolled
// already: they go to the rollups too), and a rollup step holds it alone
// while it rolls a slice and moves the marks. "rdmaroll" in ASCII.
inline constexpr int64_t kPgRollupLock = 0x72646d61726f6c6c;
inline constexpr char kPgRollupSharedXactLockSql[] = "SELECT pg_advisory_xact_lock_shared(8242833483294010476)";
inline constexpr char kPgRollupXactLockSql[] = "SELECT pg_advisory_xact_lock(8242833483294010476)";
static_assert(kPgRollupLock == 8242833483294010476, "the rollup lock's statements name kPgRollupLock");

// The channel each commit of reports is announced on (pg_notify, delivered
// at the commit) for the other collectors' read models (pg_follower.h). The
// payload says which reports the commit stored (commit_announcement.h); a
// commit of many reports sends several, each under kPgNotifyMaxBytes.
inline constexpr char kPgCommitChannel[] = "rdmascope_commits";
inline constexpr size_t kPgNotifyMaxBytes = 7000;

// The days ahead of today whose partitions exist (made at open and by retention).
inline constexpr int kPgPartitionDaysAhead = 2;

}  // namespace rdmascope::collector
