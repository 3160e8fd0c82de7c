// ApplyPgMigrations and the day partitions (contract in pg_migrate.h).
#include "collector/store/pg_migrate.h"

#include <algorithm>
#include <iterator>

namespace rdmascope::collector {
namespace {

// Runs fn under the schema lock (a session advisory lock, released however fn ends).
template <typename T, typename Fn>
Result<T> UnderSchemaLock(PgDb& db, const char* what, Fn fn) {
  const std::string key = std::to_string(kPgMigrationLock);
  if (Status s = db.Exec("SELECT pg_advisory_lock(" + key + ")"); !s.ok())
    return Result<T>::Error(std::string(what) + ": taking the schema lock: " + s.message());
  Result<T> out = fn();
  Status unlocked = db.Exec("SELECT pg_advisory_unlock(" + key + ")");
  if (out.ok() && !unlocked.ok())
    return Result<T>::Error(std::string(what) + ": releasing the schema lock: " + unlocked.message());
  return out;
}

Result<int> IntOf(Result<PgResult> r, const std::string& what) {
  if (!r.ok()) return Result<int>::Error(what + ": " + r.status().message());
  if (r.value().rows() != 1) return Result<int>::Error(what + ": no answer");
  return static_cast<int>(r.value().OptInt(0, 0).value_or(0));
}

}  // namespace

std::vector<EmbeddedMigration> BuiltinPgMigrations() {
  return std::vector<EmbeddedMigration>(std::begin(kEmbeddedPgMigrations), std::end(kEmbeddedPgMigrations));
}

Result<int> PgSchemaVersion(PgDb& db) {
  auto exists = db.Query("SELECT to_regclass('schema_version') IS NOT NULL");
  if (!exists.ok()) return Result<int>::Error("reading the schema version: " + exists.status().message());
  if (exists.value().Text(0, 0) != "t") return 0;
  return IntOf(db.Query("SELECT coalesce(max(version), 0) FROM schema_version"), "reading the schema version");
}

Result<int> ApplyPgMigrations(PgDb& db, const std::vector<EmbeddedMigration>& migrations) {
  std::vector<EmbeddedMigration> sorted = migrations;
  std::sort(sorted.begin(), sorted.end(),
            [](const EmbeddedMigration& a, const EmbeddedMigration& b) { return a.version < b.version; });
  const int known = sorted.empty() ? 0 : sorted.back().version;
  return UnderSchemaLock<int>(db, "migrating the PostgreSQL schema", [&]() -> Result<int> {
    auto have = PgSchemaVersion(db);
    if (!have.ok()) return have;
    if (have.value() > known)
      return Result<int>::Error("the database's schema is version " + std::to_string(have.value()) +
                                ", newer than this collector knows (" + std::to_string(known) +
                                "): a newer collector wrote it; run that version (a downgrade is not done)");
    for (const EmbeddedMigration& m : sorted) {
      if (m.version <= have.value()) continue;
      if (Status s = db.Exec("BEGIN"); !s.ok()) return Result<int>::Error(std::string(m.name) + ": " + s.message());
      Status s = db.Exec(m.sql);
      Result<int> now = s.ok() ? PgSchemaVersion(db) : Result<int>::Error(s.message());
      if (s.ok() && now.ok() && now.value() != m.version)
        now = Result<int>::Error("it did not insert its version into schema_version");
      if (!now.ok()) {
        (void)db.Exec("ROLLBACK");
        return Result<int>::Error("migration " + std::string(m.name) + " failed: " + now.status().message());
      }
      if (Status c = db.Exec("COMMIT"); !c.ok())
        return Result<int>::Error("migration " + std::string(m.name) + ", commit: " + c.message());
    }
    return PgSchemaVersion(db);
  });
}

Result<int> EnsurePartitions(PgDb& db, int64_t from_ms, int days) {
  return UnderSchemaLock<int>(db, "making day partitions", [&] {
    return IntOf(db.Query("SELECT rdmascope_ensure_partitions($1::bigint, $2::integer)",
                          {std::to_string(from_ms), std::to_string(days)}),
                 "making day partitions");
  });
}

Result<int> DropPartitionsBefore(PgDb& db, int64_t before_ms) {
  return UnderSchemaLock<int>(db, "dropping day partitions", [&] {
    return IntOf(db.Query("SELECT rdmascope_drop_partitions_before($1::bigint)", {std::to_string(before_ms)}),
                 "dropping day partitions");
  });
}

Result<std::vector<std::string>> PartitionsOf(PgDb& db, const std::string& table) {
  auto r = db.Query(
      "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
      "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = $1 AND c.relname ~ '_p[0-9]{8}$' ORDER BY c.relname",
      {table});
  if (!r.ok()) return Result<std::vector<std::string>>::Error("listing the partitions of " + table + ": " + r.status().message());
  std::vector<std::string> out;
  for (int i = 0; i < r.value().rows(); ++i) out.emplace_back(r.value().Text(i, 0));
  return out;
}

}  // namespace rdmascope::collector
