// Numbered schema migrations.
//
// Contract: migrations are applied in ascending version order, each in its own
// transaction; a migration must insert its version into schema_version (the
// runner checks that it did). Versions already present are skipped, so opening
// an up-to-date database changes nothing. A database newer than the binary
// (a version above the highest known) is an error, not a silent downgrade.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "collector/store/migrations_embedded.h"
#include "collector/store/store_db.h"

namespace rdmascope::collector {

// The migrations built into this binary (schemas/migrations/*.sql).
std::vector<EmbeddedMigration> BuiltinMigrations();

// Called about every `every` while a migration runs: a migration of a large
// database (an index over hours of raw summaries) can take minutes, and a
// service manager told nothing takes that for a hung start.
struct MigrationHeartbeat {
  std::chrono::milliseconds every{10000};
  std::function<void()> beat;  // none: nothing is called
};

// Applies what is missing; returns the resulting schema version.
Result<int> ApplyMigrations(Db& db, const std::vector<EmbeddedMigration>& migrations,
                            const MigrationHeartbeat& heartbeat = {});

// The highest version in schema_version, 0 for an empty database.
Result<int> SchemaVersion(Db& db);

}  // namespace rdmascope::collector
