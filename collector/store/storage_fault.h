// What a failed database write says about the storage, as opposed to the report.
//
// Contract: ClassifyStorageFault reads SQLite's own error texts inside a
// Status message (sqlite3_errstr of SQLITE_FULL, SQLITE_CORRUPT,
// SQLITE_NOTADB, SQLITE_IOERR) and PostgreSQL's (pg_db.h: "PostgreSQL at
// SERVER" with its SQLSTATE): disk full (53100) is kFull, data corrupted
// (XX001, XX002) kCorrupt, an I/O error (58030) kIo, and a server that cannot
// be reached or went away (connection exceptions 08xxx, shutdown 57P01-57P03,
// a connection lost or refused) kUnavailable; anything else is kNone. StorageHealth keeps
// the storage problem of the newest write outcome: a failed write with a
// storage fault sets it, a successful write clears it; safe from any thread.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "common/status.h"

namespace rdmascope::collector {

enum class StorageFault { kNone, kFull, kCorrupt, kIo, kUnavailable };

StorageFault ClassifyStorageFault(const std::string& message);

// "storage full", "storage damaged", "storage I/O error", "storage
// unavailable"; "" for kNone.
const char* StorageFaultClass(StorageFault fault);

// What an operator should do about a fault in database `path`; with an empty
// path the text names no file (for clients: it has no path in it).
std::string StorageFaultAdvice(StorageFault fault, const std::string& path);

class StorageHealth {
 public:
  void Note(const Status& write_outcome);
  // "storage full: ...", "storage damaged: ..." or "storage I/O error: ...".
  std::optional<std::string> Problem() const;
  StorageFault fault() const;

 private:
  mutable std::mutex mu_;
  StorageFault fault_ = StorageFault::kNone;
  std::string message_;
};

}  // namespace rdmascope::collector
