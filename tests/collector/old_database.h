// Databases as an earlier collector left them, for migration tests.
#pragma once

#include <string>
#include <vector>

#include "collector/store/storage.h"
#include "collector/store/store_db.h"
#include "collector/store/store_migrate.h"

namespace rdmascope::collector::testing {

// Creates the database at path with the built-in migrations up to and
// including `version`, then runs `rows` (SQL) in it: what a collector of that
// schema version stored. Returns the first failure.
inline Status MakeDatabaseAtVersion(const std::string& path, int version, const std::string& rows) {
  auto db = Db::Open(path);
  if (!db.ok()) return db.status();
  std::vector<EmbeddedMigration> old;
  for (const EmbeddedMigration& m : BuiltinMigrations())
    if (m.version <= version) old.push_back(m);
  if (auto applied = ApplyMigrations(db.value(), old); !applied.ok()) return applied.status();
  return db.value().Exec(rows);
}

// Opens path with the current store (every migration applied), as a test
// collector does: synchronous=NORMAL.
inline Result<std::unique_ptr<Storage>> OpenCurrentStore(const std::string& path) {
  StoreOptions o;
  o.path = path;
  o.synchronous_full = false;
  return Storage::Open(o);
}

// Makes path at `version` with `rows`, then opens it with the current store:
// the upgrade a collector of this version does.
inline Result<std::unique_ptr<Storage>> UpgradeFrom(const std::string& path, int version, const std::string& rows) {
  if (Status made = MakeDatabaseAtVersion(path, version, rows); !made.ok()) return made;
  return OpenCurrentStore(path);
}

}  // namespace rdmascope::collector::testing
