// The collector's storage on PostgreSQL: the same objects as on SQLite
// (storage.h), over a PostgreSQL database that several collectors may share.
//
// Contract:
//  - OpenPostgresStorage(target, password, options, now_ms) connects the
//    writer (target: a libpq URI or keyword string, the password beside it,
//    never in it), applies the built-in PostgreSQL migrations (once, however
//    many collectors start together), makes the day partitions of the raw
//    history from the day before now_ms through kPgPartitionDaysAhead days
//    after it, and builds the store on that connection (Storage::OpenOn).
//    A failure names the server, the step and what to check; the password
//    never appears in it.
//  - The history reads run on connections of their own (HistoryReader),
//    opened as the writer's and set read-only, each query stopped by
//    statement_timeout at options.query_deadline_ms.
//  - options.path is set to the server's name (host:port/database) for the
//    store's messages.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "collector/store/pg_locks.h"
#include "collector/store/storage.h"

namespace rdmascope::collector {

Result<std::unique_ptr<Storage>> OpenPostgresStorage(const std::string& target, const std::string& password,
                                                     StoreOptions options, int64_t now_ms);

}  // namespace rdmascope::collector
