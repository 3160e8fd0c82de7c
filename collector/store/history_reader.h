// History queries on read-only connections of their own.
//
// Contract: Query() runs `fn` on a read-only connection to the database
// (taken from a small pool, opened on first use by `open`), never under the
// writer's lock, so a long history range does not hold up ingest, and ingest
// does not hold up the query (SQLite's WAL, PostgreSQL's MVCC: readers see
// the last commit). The query is stopped once it has run `deadline_ms`
// (SQLite: a progress handler; PostgreSQL: statement_timeout, which `open`
// sets); the error then starts with kHistoryDeadlineError and says what to
// narrow. Each query's statements are reset before its connection goes back
// to the pool (none keeps a read open). A connection that failed is not
// given back to the pool, and a
// query whose PostgreSQL connection was lost (the server restarted) runs
// once more on a new one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/store/store_db.h"

namespace rdmascope::collector {

inline constexpr char kHistoryDeadlineError[] = "history query stopped at its deadline";

class HistoryReader {
 public:
  using Open = std::function<Result<std::unique_ptr<SqlConn>>()>;
  HistoryReader(Open open, int64_t deadline_ms);
  // SQLite's: the file opened read-only, with its busy timeout.
  HistoryReader(std::string path, int64_t deadline_ms, int busy_timeout_ms);
  using Fn = std::function<Result<nlohmann::json>(SqlConn&)>;
  Result<nlohmann::json> Query(const Fn& fn) { return Run<nlohmann::json>(fn); }
  // The same for an answer of another type (e.g. JSON text written row by row).
  template <typename T>
  Result<T> Run(const std::function<Result<T>(SqlConn&)>& fn) {
    for (int attempt = 0;; ++attempt) {
      auto db = Take();
      if (!db.ok()) return db.status();
      Clock::time_point deadline;
      Arm(*db.value(), &deadline);
      Result<T> out = fn(*db.value());
      db.value()->ResetStatements();  // a pooled connection keeps no read open (a stale snapshot)
      const std::string error = out.ok() ? std::string() : out.status().message();
      const bool stopped = Disarm(*db.value(), deadline, error);
      const bool lost = !out.ok() && Lost(*db.value(), error);
      Give(std::move(db).value(), out.ok());
      if (stopped) return Result<T>::Error(DeadlineMessage());
      // A pooled connection the server dropped (it restarted) fails its
      // first query: once more on a new one.
      if (lost && attempt == 0) continue;
      return out;
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  Result<std::unique_ptr<SqlConn>> Take();
  void Give(std::unique_ptr<SqlConn> db, bool ok);
  // Sets *deadline and, on SQLite, installs the progress handler that stops
  // db's statements there (*deadline must outlive them); Disarm removes it
  // and says whether the query was stopped at the deadline (failed with
  // `error` past it, or on PostgreSQL cancelled by statement_timeout).
  void Arm(SqlConn& db, Clock::time_point* deadline);
  bool Disarm(SqlConn& db, const Clock::time_point& deadline, const std::string& error);
  std::string DeadlineMessage() const;
  // Whether db failed because its PostgreSQL connection was lost.
  static bool Lost(SqlConn& db, const std::string& error);

  const Open open_;
  const int64_t deadline_ms_;
  std::mutex mu_;
  std::vector<std::unique_ptr<SqlConn>> idle_;  // at most kMaxIdle kept
  static constexpr size_t kMaxIdle = 4;
};

}  // namespace rdmascope::collector
