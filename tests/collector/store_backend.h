// The store under test on the backend its test binary was built for: SQLite
// in a scratch file, or a real PostgreSQL server started for the test (no
// mock). The store's tests are one source built twice — once per backend —
// so that every one of them that is not about one engine runs on both, and
// the counts per backend are those of the two binaries.
//
// Contract:
//  - TestStoreDatabase::Open(options) opens the test's database (made on
//    first use: the scratch file, or the server and its migrations) with
//    the given options and returns its store; opened again after the store
//    is destroyed, it finds what was committed. options.path is set here.
//  - Any failure, PostgreSQL missing included, is an error naming what
//    failed: a test of the PostgreSQL build never passes without a server.
//  - The server and the scratch directory are removed with the object.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "collector/store/storage.h"
#include "collector/store/store_migrate.h"
#include "tests/support/scratch_dir.h"

#ifdef RDMASCOPE_STORE_TESTS_ON_POSTGRES
#include "collector/store/pg_migrate.h"
#include "collector/store/pg_storage.h"
#include "tests/support/postgres_server.h"
#endif

namespace rdmascope::collector::testing {

#ifdef RDMASCOPE_STORE_TESTS_ON_POSTGRES
inline constexpr bool kStoreOnPostgres = true;
#else
inline constexpr bool kStoreOnPostgres = false;
#endif

// The migrations a new database of this backend records.
inline size_t BuiltinMigrationCount() {
#ifdef RDMASCOPE_STORE_TESTS_ON_POSTGRES
  return BuiltinPgMigrations().size();
#else
  return BuiltinMigrations().size();
#endif
}

class TestStoreDatabase {
 public:
  explicit TestStoreDatabase(const std::string& prefix) : dir_(prefix) {}

  // now_ms: where PostgreSQL's day partitions start (the day before it).
  Result<std::unique_ptr<Storage>> Open(StoreOptions options, int64_t now_ms) {
#ifdef RDMASCOPE_STORE_TESTS_ON_POSTGRES
    if (!pg_) {
      std::string error;
      pg_ = testsupport::StartPostgresOrNull(&error);
      if (!pg_)
        return Status::Error(error.empty() ? "PostgreSQL is not installed (scripts/setup-deps.sh installs it)"
                                           : "PostgreSQL did not start: " + error);
    }
    return OpenPostgresStorage(pg_->SocketConninfo(), "", std::move(options), now_ms);
#else
    (void)now_ms;
    options.path = dir_.File("store.db");
    return Storage::Open(options);
#endif
  }

  // The scratch directory (SQLite's file is store.db in it).
  const testsupport::ScratchDir& dir() const { return dir_; }
  std::string sqlite_file() const { return dir_.File("store.db"); }

 private:
  testsupport::ScratchDir dir_;
#ifdef RDMASCOPE_STORE_TESTS_ON_POSTGRES
  std::unique_ptr<testsupport::PostgresServer> pg_;
#endif
};

}  // namespace rdmascope::collector::testing
