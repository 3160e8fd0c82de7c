#include "collector/store/history_reader.h"

#include "collector/store/storage_fault.h"

#include <chrono>

namespace rdmascope::collector {

namespace {

// Called by SQLite every 1000 virtual-machine steps: non-zero stops the query.
int PastDeadline(void* deadline) {
  using Clock = std::chrono::steady_clock;
  return Clock::now() >= *static_cast<Clock::time_point*>(deadline) ? 1 : 0;
}

}  // namespace

HistoryReader::HistoryReader(Open open, int64_t deadline_ms) : open_(std::move(open)), deadline_ms_(deadline_ms) {}

HistoryReader::HistoryReader(std::string path, int64_t deadline_ms, int busy_timeout_ms)
    : HistoryReader(
          [path = std::move(path), busy_timeout_ms]() -> Result<std::unique_ptr<SqlConn>> {
            auto db = Db::OpenReadOnly(path);
            if (!db.ok()) return db.status();
            sqlite3_busy_timeout(db.value().raw(), busy_timeout_ms);
            return std::unique_ptr<SqlConn>(std::make_unique<Db>(std::move(db).value()));
          },
          deadline_ms) {}

Result<std::unique_ptr<SqlConn>> HistoryReader::Take() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<SqlConn> db = std::move(idle_.back());
      idle_.pop_back();
      return db;
    }
  }
  return open_();
}

void HistoryReader::Give(std::unique_ptr<SqlConn> db, bool ok) {
  // A PostgreSQL connection that failed may be gone (server restarted): a new one next time.
  if (!ok && db->postgres()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(db));
}

void HistoryReader::Arm(SqlConn& db, Clock::time_point* deadline) {
  *deadline = Clock::now() + std::chrono::milliseconds(deadline_ms_);
  if (Db* lite = db.sqlite()) sqlite3_progress_handler(lite->raw(), 1000, PastDeadline, deadline);
}

bool HistoryReader::Disarm(SqlConn& db, const Clock::time_point& deadline, const std::string& error) {
  if (Db* lite = db.sqlite()) {
    sqlite3_progress_handler(lite->raw(), 0, nullptr, nullptr);
    return !error.empty() && Clock::now() >= deadline;
  }
  // SQLSTATE 57014: query_canceled, which statement_timeout raises.
  return error.find("57014") != std::string::npos;
}

bool HistoryReader::Lost(SqlConn& db, const std::string& error) {
  return db.postgres() && ClassifyStorageFault(error) == StorageFault::kUnavailable;
}

std::string HistoryReader::DeadlineMessage() const {
  return std::string(kHistoryDeadlineError) + " (" + std::to_string(deadline_ms_) +
         " ms, query_deadline_ms): ask for a shorter time range or a lower limit";
}

}  // namespace rdmascope::collector
