#include "collector/history_reader.h"

#include <chrono>

namespace rdmascope::collector {

namespace {

using Clock = std::chrono::steady_clock;

// Called by SQLite every 1000 virtual-machine steps: non-zero stops the query.
int PastDeadline(void* deadline) { return Clock::now() >= *static_cast<Clock::time_point*>(deadline) ? 1 : 0; }

}  // namespace

HistoryReader::HistoryReader(std::string path, int64_t deadline_ms, int busy_timeout_ms)
    : path_(std::move(path)), deadline_ms_(deadline_ms), busy_timeout_ms_(busy_timeout_ms) {}

Result<Db> HistoryReader::Take() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      Db db = std::move(idle_.back());
      idle_.pop_back();
      return db;
    }
  }
  auto db = Db::OpenReadOnly(path_);
  if (db.ok()) sqlite3_busy_timeout(db.value().raw(), busy_timeout_ms_);
  return db;
}

void HistoryReader::Give(Db db) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(db));
}

Result<nlohmann::json> HistoryReader::Query(const Fn& fn) {
  auto db = Take();
  if (!db.ok()) return db.status();
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(deadline_ms_);
  sqlite3_progress_handler(db.value().raw(), 1000, PastDeadline, &deadline);
  Result<nlohmann::json> out = fn(db.value());
  sqlite3_progress_handler(db.value().raw(), 0, nullptr, nullptr);
  const bool stopped = !out.ok() && Clock::now() >= deadline;
  Give(std::move(db).value());
  if (stopped)
    return Result<nlohmann::json>::Error(std::string(kHistoryDeadlineError) + " (" + std::to_string(deadline_ms_) +
                                         " ms, query_deadline_ms): ask for a shorter time range or a lower limit");
  return out;
}

}  // namespace rdmascope::collector
