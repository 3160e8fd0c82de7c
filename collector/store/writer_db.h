// The writer's connection to the collector's database — SQLite (WAL mode) or
// PostgreSQL, behind SqlConn — and what every store object shares through it.
//
// Contract:
//  - One connection writes; mu() serialises every use of it (conn(), db(),
//    Q()). Store objects take mu() for the whole of a transaction.
//  - Q() returns a cached prepared statement, reset; call under mu().
//  - db() and sqlite() are SQLite's own connection, for what only SQLite has
//    (the WAL, the file's pages, the read-only connections): sqlite() is
//    nullptr on PostgreSQL, and db() must not be called there.
//  - History() and HistoryText() run a read on a read-only connection of
//    their own (HistoryReader: never under mu(), stopped at the query
//    deadline), or for an in-memory database on the writer's under mu().
//  - The WAL hook records the frames each commit leaves in the WAL; a
//    commit that leaves kWalBackstopPages or more copies them at once
//    (WalCheckpoint copies them off the writer otherwise).
//  - Times are milliseconds since the epoch.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "collector/rules/thresholds.h"
#include "collector/store/history_reader.h"
#include "collector/store/probe_row_bulk.h"
#include "collector/store/store_db.h"
#include "collector/store/store_migrate.h"
#include "common/status.h"

namespace rdmascope::collector {

struct StoreOptions {
  std::string path = "rdmascope.db";
  int busy_timeout_ms = 5000;
  bool synchronous_full = true;  // FULL: an acknowledged report survives power loss; false: NORMAL
  int64_t max_bytes = 0;         // the database file grows no larger (writes then fail "full"); 0: no cap
  int64_t query_deadline_ms = 5000;  // every read for the API and the diagnosis stops after this
  CounterThresholds thresholds = DefaultCounterThresholds();
  CounterThresholds congestion = DefaultCongestionThresholds();  // per second (port_congested)
  MigrationHeartbeat migration_heartbeat;  // while Open migrates the database
  // The read snapshot keeps the probe pairs of at most this many destinations
  // per node (those reported last); the others' rows stay in the database.
  size_t max_destinations_per_node = 1024;
  // Where the store says what it dropped (the destinations over the cap); may be empty.
  std::function<void(const std::string&)> log;
};

class WriterDb {
 public:
  // Opens the file, sets WAL, durability and the size cap, and applies the
  // built-in migrations; a failure names the file and what to check.
  static Result<Db> OpenDatabase(const StoreOptions& options);
  WriterDb(Db db, StoreOptions options);
  // Either engine's connection, ready (migrated); options.path names it in
  // errors. open_reader: the history reads' connections (HistoryReader); none:
  // they run on this connection under mu(). For SQLite, the file's read-only
  // connections unless it is in memory.
  WriterDb(std::unique_ptr<SqlConn> conn, StoreOptions options, HistoryReader::Open open_reader = nullptr,
           std::unique_ptr<ProbeRowBulk> probe_bulk = nullptr);
  ~WriterDb();
  WriterDb(const WriterDb&) = delete;
  WriterDb& operator=(const WriterDb&) = delete;

  std::mutex& mu() const { return mu_; }
  SqlConn& conn() { return *conn_; }
  // The engine's bulk store of probe rows, or nullptr: one INSERT per row.
  ProbeRowBulk* probe_bulk() { return probe_bulk_.get(); }
  Db* sqlite() { return sqlite_; }
  Db& db() { return *sqlite_; }
  const StoreOptions& options() const { return options_; }
  const std::string& path() const { return options_.path; }
  // This store's own name among the collectors sharing a database (random,
  // made at open): what its commit announcements carry (pg_follower.h).
  const std::string& instance_id() const { return instance_id_; }

  Result<SqlStmt*> Q(const char* sql) { return conn_->Q(sql); }  // cached prepared statement, under mu()
  // Test seam: called at every step of an ingest with the step's name
  // ("report", "node", "port", "counters", "probe", "wc_error", "commit");
  // an error aborts the ingest at that step.
  void SetIngestFaultHook(std::function<Status(const std::string& step)> hook);
  Status Fault(const char* step);  // under mu()

  Result<nlohmann::json> History(const std::function<Result<nlohmann::json>(SqlConn&)>& fn);
  Result<std::string> HistoryText(const std::function<Result<std::string>(SqlConn&)>& fn);
  // The same for an answer of any type (e.g. a topology as model values).
  template <typename T>
  Result<T> HistoryRun(const std::function<Result<T>(SqlConn&)>& fn) {
    if (history_) return history_->Run<T>(fn);
    std::lock_guard<std::mutex> lock(mu_);
    return fn(*conn_);
  }
  Result<nlohmann::json> SelectRows(const char* sql);  // every row of a cached statement, under mu()

  // Database file plus WAL size in bytes (0 for an in-memory database).
  int64_t SizeBytes() const;
  // A read of the database on a read-only connection (not the writer's).
  Status Ping();
  Result<int64_t> CountRows(const std::string& table);  // table must be a known table name

  // The WAL's frames (see WalCheckpoint).
  static constexpr int kWalCheckpointPages = 1000;
  static constexpr int kWalBackstopPages = 4 * kWalCheckpointPages;
  int WalPagesToCopy() const;
  // A passive checkpoint on db (the writer's connection under mu(), or a
  // checkpoint connection); records the frames it copied.
  Status CopyWal(Db& db);

 private:
  static int OnWalCommit(void* self, sqlite3* db, const char* schema, int pages);
  mutable std::mutex mu_;
  std::unique_ptr<SqlConn> conn_;
  Db* sqlite_ = nullptr;  // conn_ when it is SQLite's
  std::unique_ptr<ProbeRowBulk> probe_bulk_;
  StoreOptions options_;
  std::unique_ptr<HistoryReader> history_;
  std::string instance_id_;
  std::function<Status(const std::string&)> fault_hook_;
  // Frames in the WAL after the writer's last commit (set by its WAL hook,
  // under mu_), and the frames of it a checkpoint has copied (0 again once
  // the WAL restarted).
  std::atomic<int> wal_pages_{0}, wal_copied_{0};
};

}  // namespace rdmascope::collector
