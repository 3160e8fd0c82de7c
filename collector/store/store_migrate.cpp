#include "collector/store/store_migrate.h"

#include <algorithm>
#include <string>

#include <sqlite3.h>

namespace rdmascope::collector {

namespace {

using Clock = std::chrono::steady_clock;

struct Beating {
  const MigrationHeartbeat* heartbeat;
  Clock::time_point next;
};

// sqlite3_progress_handler callback: beats when the interval has passed; never stops the statement.
int Beat(void* arg) {
  auto* b = static_cast<Beating*>(arg);
  const Clock::time_point now = Clock::now();
  if (now >= b->next) {
    b->heartbeat->beat();
    b->next = now + b->heartbeat->every;
  }
  return 0;
}

}  // namespace

std::vector<EmbeddedMigration> BuiltinMigrations() {
  return std::vector<EmbeddedMigration>(std::begin(kEmbeddedMigrations), std::end(kEmbeddedMigrations));
}

Result<int> SchemaVersion(Db& db) {
  auto exists = db.Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  if (!exists.ok()) return exists.status();
  auto has = exists.value().Step();
  if (!has.ok()) return has.status();
  if (!has.value()) return 0;
  auto q = db.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version");
  if (!q.ok()) return q.status();
  auto row = q.value().Step();
  if (!row.ok()) return row.status();
  return static_cast<int>(q.value().Int(0));
}

Result<int> ApplyMigrations(Db& db, const std::vector<EmbeddedMigration>& migrations,
                            const MigrationHeartbeat& heartbeat) {
  std::vector<EmbeddedMigration> sorted = migrations;
  std::sort(sorted.begin(), sorted.end(),
            [](const EmbeddedMigration& a, const EmbeddedMigration& b) { return a.version < b.version; });
  auto current = SchemaVersion(db);
  if (!current.ok()) return current.status();
  int version = current.value();
  int highest = sorted.empty() ? 0 : sorted.back().version;
  if (version > highest)
    return Result<int>::Error("database schema version " + std::to_string(version) +
                              " is newer than this collector knows (" + std::to_string(highest) +
                              "): run a newer rdmascope-collector or point --db at another file");
  Beating beating{&heartbeat, Clock::now() + heartbeat.every};
  struct Unregister {
    sqlite3* db;
    ~Unregister() { sqlite3_progress_handler(db, 0, nullptr, nullptr); }
  } unregister{db.raw()};
  if (heartbeat.beat) sqlite3_progress_handler(db.raw(), 10000, Beat, &beating);
  for (const EmbeddedMigration& m : sorted) {
    if (m.version <= version) continue;
    Transaction tx(db);
    if (Status s = tx.Begin(); !s.ok()) return s;
    if (Status s = db.Exec(m.sql); !s.ok())
      return Result<int>::Error(std::string("migration ") + m.name + " failed: " + s.message());
    auto after = SchemaVersion(db);
    if (!after.ok()) return after.status();
    if (after.value() != m.version)
      return Result<int>::Error(std::string("migration ") + m.name + " did not record version " +
                                std::to_string(m.version) + " in schema_version");
    if (Status s = tx.Commit(); !s.ok()) return s;
    version = m.version;
  }
  return version;
}

}  // namespace rdmascope::collector
