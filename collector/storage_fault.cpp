#include "collector/storage_fault.h"

#include <sqlite3.h>

namespace rdmascope::collector {

StorageFault ClassifyStorageFault(const std::string& message) {
  auto has = [&message](int code) { return message.find(sqlite3_errstr(code)) != std::string::npos; };
  if (has(SQLITE_FULL)) return StorageFault::kFull;
  if (has(SQLITE_CORRUPT) || has(SQLITE_NOTADB)) return StorageFault::kCorrupt;
  if (has(SQLITE_IOERR)) return StorageFault::kIo;
  return StorageFault::kNone;
}

std::string StorageFaultAdvice(StorageFault fault, const std::string& path) {
  switch (fault) {
    case StorageFault::kFull:
      return "the database " + path +
             " cannot grow: its disk is full or it reached --db-max-bytes. Free disk space, raise --db-max-bytes "
             "or shorten --retention-days; agents keep their reports spooled and retry";
    case StorageFault::kCorrupt:
      return "the database " + path +
             " is damaged. Stop the collector, move " + path + " and its -wal and -shm files aside (keep them: "
             "`sqlite3 FILE .recover` may save the history) and start again to create a new database, or restore a "
             "backup";
    case StorageFault::kIo:
      return "reading or writing the database " + path + " failed: check the disk and the kernel log";
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
  switch (fault_) {
    case StorageFault::kFull:
      return "storage full: " + message_;
    case StorageFault::kCorrupt:
      return "storage damaged: " + message_;
    case StorageFault::kIo:
      return "storage I/O error: " + message_;
    case StorageFault::kNone:
      break;
  }
  return std::nullopt;
}

StorageFault StorageHealth::fault() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fault_;
}

}  // namespace rdmascope::collector
