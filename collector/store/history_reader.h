// History queries on read-only connections of their own.
//
// Contract: Query() runs `fn` on a read-only connection to the database file
// (taken from a small pool, opened on first use), never under the writer's
// lock, so a long history range does not hold up ingest, and ingest does not
// hold up the query (WAL: readers see the last commit). The query is stopped
// once it has run `deadline_ms` (sqlite3_progress_handler); the error then
// starts with kHistoryDeadlineError and says what to narrow.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/store/store_db.h"

namespace rdmascope::collector {

inline constexpr char kHistoryDeadlineError[] = "history query stopped at its deadline";

class HistoryReader {
 public:
  HistoryReader(std::string path, int64_t deadline_ms, int busy_timeout_ms);
  using Fn = std::function<Result<nlohmann::json>(Db&)>;
  Result<nlohmann::json> Query(const Fn& fn) { return Run<nlohmann::json>(fn); }
  // The same for an answer of another type (e.g. JSON text written row by row).
  template <typename T>
  Result<T> Run(const std::function<Result<T>(Db&)>& fn) {
    auto db = Take();
    if (!db.ok()) return db.status();
    Clock::time_point deadline;
    Arm(db.value(), &deadline);
    Result<T> out = fn(db.value());
    const bool stopped = Disarm(db.value(), deadline) && !out.ok();
    Give(std::move(db).value());
    if (stopped) return Result<T>::Error(DeadlineMessage());
    return out;
  }

 private:
  using Clock = std::chrono::steady_clock;
  Result<Db> Take();
  void Give(Db db);
  // Sets *deadline and installs the progress handler that stops db's
  // statements there (*deadline must outlive them); Disarm removes it and
  // says whether the deadline has passed.
  void Arm(Db& db, Clock::time_point* deadline);
  bool Disarm(Db& db, const Clock::time_point& deadline);
  std::string DeadlineMessage() const;

  const std::string path_;
  const int64_t deadline_ms_;
  const int busy_timeout_ms_;
  std::mutex mu_;
  std::vector<Db> idle_;  // at most kMaxIdle kept
  static constexpr size_t kMaxIdle = 4;
};

}  // namespace rdmascope::collector
