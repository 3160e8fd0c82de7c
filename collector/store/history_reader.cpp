#include "collector/store/history_reader.h"

#include <chrono>

namespace rdmascope::collector {

namespace {

// Called by SQLite every 1000 virtual-machine steps: non-zero stops the query.
int PastDeadline(void* deadline) {
  using Clock = std::chrono::steady_clock;
  return Clock::now() >= *static_cast<Clock::time_point*>(deadline) ? 1 : 0;
}

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

void HistoryReader::Arm(Db& db, Clock::time_point* deadline) {
  *deadline = Clock::now() + std::chrono::milliseconds(deadline_ms_);
  sqlite3_progress_handler(db.raw(), 1000, PastDeadline, deadline);
}

bool HistoryReader::Disarm(Db& db, const Clock::time_point& deadline) {
  sqlite3_progress_handler(db.raw(), 0, nullptr, nullptr);
  return Clock::now() >= deadline;
}

std::string HistoryReader::DeadlineMessage() const {
  return std::string(kHistoryDeadlineError) + " (" + std::to_string(deadline_ms_) +
         " ms, query_deadline_ms): ask for a shorter time range or a lower limit";
}

}  // namespace rdmascope::collector
