// OpenPostgresStorage (contract in pg_storage.h).
#include "collector/store/pg_storage.h"

#include <utility>

#include "collector/store/pg_db.h"
#include "collector/store/pg_migrate.h"
#include "collector/store/pg_probe_copy.h"

namespace rdmascope::collector {

namespace {

constexpr int64_t kDayMs = 24 * 3600 * 1000;

// A connection for the history reads: read-only, each statement stopped at the deadline.
Result<std::unique_ptr<SqlConn>> OpenReader(const std::string& target, const std::string& password,
                                            int64_t deadline_ms) {
  auto db = PgDb::Connect(target, password);
  if (!db.ok()) return db.status();
  const std::string set = "SET default_transaction_read_only = on; SET statement_timeout = " +
                          std::to_string(deadline_ms > 0 ? deadline_ms : 0);
  if (Status s = db.value().Exec(set); !s.ok()) return s;
  return std::unique_ptr<SqlConn>(std::make_unique<PgDb>(std::move(db).value()));
}

// The writer's probe rows as one COPY per transaction.
class PgProbeCopy final : public ProbeRowBulk {
 public:
  Status Store(SqlConn& conn, const std::vector<std::shared_ptr<const ProbeRow>>& rows) override {
    if (rows.empty()) return Status::Ok();
    PgDb* db = conn.postgres();
    if (!db) return Status::Error("probe rows by COPY: the writer's connection is not PostgreSQL's");
    CopyRows copy;
    for (const auto& r : rows) AppendProbeRow(*r, &copy);
    auto stored = CopyProbeRows(*db, copy);
    if (!stored.ok()) return stored.status();
    if (stored.value() != static_cast<int64_t>(rows.size()))
      return Status::Error("probe rows by COPY: " + std::to_string(stored.value()) + " of " +
                           std::to_string(rows.size()) + " stored");
    return Status::Ok();
  }
};

}  // namespace

Result<std::unique_ptr<Storage>> OpenPostgresStorage(const std::string& target, const std::string& password,
                                                     StoreOptions options, int64_t now_ms) {
  auto db = PgDb::Connect(target, password);
  if (!db.ok()) return db.status();
  PgDb& d = db.value();
  const std::string name = "PostgreSQL at " + d.server();
  auto version = ApplyPgMigrations(d, BuiltinPgMigrations());
  if (!version.ok()) return Status::Error(name + ": migrating the schema: " + version.status().message());
  auto made = EnsurePartitions(d, now_ms - kDayMs, kPgPartitionDaysAhead + 1);
  if (!made.ok()) return Status::Error(name + ": making the day partitions: " + made.status().message());
  options.path = d.server();
  const int64_t deadline_ms = options.query_deadline_ms;
  Storage::Engine engine;
  engine.open_reader = [target, password, deadline_ms] { return OpenReader(target, password, deadline_ms); };
  engine.probe_bulk = std::make_unique<PgProbeCopy>();
  return Storage::OpenOn(std::make_unique<PgDb>(std::move(db).value()), options, std::move(engine));
}

}  // namespace rdmascope::collector
