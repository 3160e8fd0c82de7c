#include "collector/store/storage_fault.h"

#include <sqlite3.h>

namespace rdmascope::collector {

namespace {

// PostgreSQL's errors as PgDb words them (pg_db.h).
StorageFault ClassifyPostgresFault(const std::string& message) {
  auto has = [&message](const char* text) { return message.find(text) != std::string::npos; };
  if (has("[SQLSTATE 53100]")) return StorageFault::kFull;
  if (has("[SQLSTATE XX001]") || has("[SQLSTATE XX002]")) return StorageFault::kCorrupt;
  if (has("[SQLSTATE 58030]")) return StorageFault::kIo;
  if (has("[SQLSTATE 08") || has("[SQLSTATE 57P01]") || has("[SQLSTATE 57P02]") || has("[SQLSTATE 57P03]") ||
      has("connecting to PostgreSQL") || has(": not connected") || has("server closed the connection") ||
      has("no connection to the server") || has("terminating connection"))
    return StorageFault::kUnavailable;
  return StorageFault::kNone;
}

}  // namespace

StorageFault ClassifyStorageFault(const std::string& message) {
  if (message.find("PostgreSQL") != std::string::npos)
    if (StorageFault f = ClassifyPostgresFault(message); f != StorageFault::kNone) return f;
  auto has = [&message](int code) { return message.find(sqlite3_errstr(code)) != std::string::npos; };
  if (has(SQLITE_FULL)) return StorageFault::kFull;
  if (has(SQLITE_CORRUPT) || has(SQLITE_NOTADB)) return StorageFault::kCorrupt;
  if (has(SQLITE_IOERR)) return StorageFault::kIo;
  return StorageFault::kNone;
}

const char* StorageFaultClass(StorageFault fault) {
  switch (fault) {
    case StorageFault::kFull:
      return "storage full";
    case StorageFault::kCorrupt:
      return "storage damaged";
    case StorageFault::kIo:
      return "storage I/O error";
    case StorageFault::kUnavailable:
      return "storage unavailable";
    case StorageFault::kNone:
      break;
  }
  return "";
}

std::string StorageFaultAdvice(StorageFault fault, const std::string& path) {
  const std::string db = path.empty() ? "the collector's database" : "the database " + path;
  const std::string files = path.empty() ? "the database file" : path;
  switch (fault) {
    case StorageFault::kFull:
      return db + " cannot grow: its disk is full or it reached --db-max-bytes. Free disk space, raise --db-max-bytes "
                  "or shorten --retention-days; agents keep their reports spooled and retry";
    case StorageFault::kCorrupt:
      return db + " is damaged. Stop the collector, move " + files +
             " and its -wal and -shm files aside (keep them: `sqlite3 FILE .recover` may save the history) and start "
             "again to create a new database, or restore a backup";
    case StorageFault::kIo:
      return "reading or writing " + db + " failed: check the disk and the kernel log";
    case StorageFault::kUnavailable:
      return db + " cannot be reached: check that its server runs and accepts this collector's connections; agents "
                  "keep their reports spooled and retry, and the collector connects again by itself";
    case StorageFault::kNone:
      break;
  }
  return "";
}

void StorageHealth::Note(const Status& write_outcome) {
  std::lock_guard<std::mutex> lock(mu_);
  if (write_outcome.ok()) {
    fault_ = StorageFault::kNone;
    message_.clear();
    return;
  }
  StorageFault f = ClassifyStorageFault(write_outcome.message());
  if (f == StorageFault::kNone) return;  // the report's fault, not the storage's
  fault_ = f;
  message_ = write_outcome.message();
}

std::optional<std::string> StorageHealth::Problem() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (fault_ == StorageFault::kNone) return std::nullopt;
  return StorageFaultClass(fault_) + (": " + message_);
}

StorageFault StorageHealth::fault() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fault_;
}

}  // namespace rdmascope::collector
