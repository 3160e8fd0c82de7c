// The collector's storage as its configuration names it: a SQLite file
// (Storage::Open), or a PostgreSQL database (OpenPostgresStorage) whose
// password is read from --db-password-file.
//
// Contract: OpenCollectorStorage(config, options, now_ms) opens and loads
// the store, or says what failed and what to check; for PostgreSQL the
// password file's first line is the password (a missing or unreadable file
// is an error naming it), and neither the password nor the URL's own
// password, if it has one, appears in an error or in DatabaseName().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "collector/service/collector_config.h"
#include "collector/store/pg_follower.h"
#include "collector/store/pg_leadership.h"
#include "collector/store/storage.h"

namespace rdmascope::collector {

Result<std::unique_ptr<Storage>> OpenCollectorStorage(const CollectorConfig& config, const StoreOptions& options,
                                                      int64_t now_ms);

// What a collector sharing config's PostgreSQL database runs beside its
// store: the follower of the other collectors' commits (pg_follower.h, not
// started) and its leadership (pg_leadership.h, logging its changes to
// log); both null for a SQLite file, whose one collector always leads.
// Called after OpenCollectorStorage succeeded (the password file was read
// then).
struct SharedDatabase {
  std::unique_ptr<PgCommitFollower> follower;
  std::unique_ptr<PgLeadership> leadership;
};
SharedDatabase OpenSharedDatabase(const CollectorConfig& config, Storage& store,
                                  std::function<void(const std::string&)> log);

// How logs name the configured database: the SQLite file, or
// postgresql://HOST... with any password in the URL left out.
std::string DatabaseName(const std::string& db);

}  // namespace rdmascope::collector
