#include "collector/store/writer_db.h"
#include "collector/store/store_rows.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

#include "collector/core/probe_error_name.h"
#include "collector/store/storage_fault.h"
#include "collector/store/store_migrate.h"
#include "common/wc_status.h"

namespace rdmascope::collector {

namespace {

constexpr int kWriterCacheKiB = 64 * 1024;

// The steps before the store is usable: WAL, durability, migrations, size cap.
Status PrepareDatabase(Db& d, const StoreOptions& options) {
  sqlite3_busy_timeout(d.raw(), options.busy_timeout_ms);
  // A new file keeps track of its pages so retention's free pages can be
  // handed back (WriterDb::ReleaseFreePages). Only an empty file not yet in WAL
  // mode takes this; an existing file keeps the mode it was made with.
  if (Status s = d.Exec("PRAGMA auto_vacuum=INCREMENTAL"); !s.ok()) return s;
  if (options.path != ":memory:") {
    auto mode = d.Prepare("PRAGMA journal_mode=WAL");
    if (!mode.ok()) return mode.status();
    auto row = mode.value().Step();
    if (!row.ok()) return row.status();
    if (!row.value() || mode.value().Text(0) != "wal")
      return Status::Error("cannot switch to WAL mode (is it on a network file system?)");
  }
  if (Status s = d.Exec(options.synchronous_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL"); !s.ok())
    return s;
  // The writer's page cache. Each report lands at the end of its source's
  // run in probe_summaries_src_time and of its source's rollup rows, so the
  // pages written are spread over every source (2,000 at the scale designed
  // for); SQLite's default 2 MiB cache would read most back from the OS.
  if (Status s = d.Exec("PRAGMA cache_size=-" + std::to_string(kWriterCacheKiB)); !s.ok()) return s;
  auto version = ApplyMigrations(d, BuiltinMigrations(), options.migration_heartbeat);
  if (!version.ok()) return version.status();
  if (options.max_bytes > 0) {
    auto page_size = d.QueryInt("PRAGMA page_size");
    if (!page_size.ok()) return page_size.status();
    const int64_t pages = std::max<int64_t>(1, options.max_bytes / std::max<int64_t>(page_size.value(), 512));
    if (Status s = d.Exec("PRAGMA max_page_count=" + std::to_string(pages)); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace

Result<Db> WriterDb::OpenDatabase(const StoreOptions& options) {
  auto db = Db::Open(options.path);
  if (!db.ok()) return db.status();
  Db d = std::move(db).value();
  if (Status s = PrepareDatabase(d, options); !s.ok()) {
    const StorageFault fault = ClassifyStorageFault(s.message());
    return Result<Db>::Error(
        "database " + options.path + ": " + s.message() +
        (fault == StorageFault::kNone ? std::string() : "; " + StorageFaultAdvice(fault, options.path)));
  }
  return d;
}

WriterDb::WriterDb(Db db, StoreOptions options)
    : WriterDb(std::make_unique<Db>(std::move(db)), std::move(options)) {}

WriterDb::WriterDb(std::unique_ptr<SqlConn> conn, StoreOptions options, HistoryReader::Open open_reader,
                   std::unique_ptr<ProbeRowBulk> probe_bulk)
    : conn_(std::move(conn)), sqlite_(conn_->sqlite()), probe_bulk_(std::move(probe_bulk)), options_(std::move(options)) {
  std::random_device random;
  char id[17];
  std::snprintf(id, sizeof id, "%08x%08x", random(), random());
  instance_id_ = id;
  if (open_reader) history_ = std::make_unique<HistoryReader>(std::move(open_reader), options_.query_deadline_ms);
  if (!sqlite_ || options_.path == ":memory:") return;
  if (!history_)
    history_ = std::make_unique<HistoryReader>(options_.path, options_.query_deadline_ms, options_.busy_timeout_ms);
  sqlite3_wal_hook(sqlite_->raw(), &WriterDb::OnWalCommit, this);
}

Result<nlohmann::json> WriterDb::History(const std::function<Result<nlohmann::json>(SqlConn&)>& fn) {
  return HistoryRun<nlohmann::json>(fn);
}

Result<std::string> WriterDb::HistoryText(const std::function<Result<std::string>(SqlConn&)>& fn) {
  return HistoryRun<std::string>(fn);
}

WriterDb::~WriterDb() {
  std::lock_guard<std::mutex> lock(mu_);
  // The read-only connection first: closing the writer's connection last
  // checkpoints the WAL into the database file and removes it.
  history_.reset();
  conn_.reset();
}

Status WriterDb::Fault(const char* step) { return fault_hook_ ? fault_hook_(step) : Status::Ok(); }

void WriterDb::SetIngestFaultHook(std::function<Status(const std::string&)> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  fault_hook_ = std::move(hook);
}

int64_t WriterDb::SizeBytes() const {
  if (!sqlite_ || options_.path == ":memory:") return 0;
  int64_t total = 0;
  for (const std::string& f : {options_.path, options_.path + "-wal"}) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0) total += st.st_size;
  }
  return total;
}

Status WriterDb::Ping() {
  // The schema's newest version: a read of the file itself, not only of the connection.
  auto r = History([](SqlConn& db) -> Result<nlohmann::json> {
    auto q = db.Q("SELECT MAX(version) FROM schema_version");
    if (!q.ok()) return q.status();
    return Rows(*q.value());
  });
  return r.ok() ? Status::Ok() : r.status();
}

Result<int64_t> WriterDb::CountRows(const std::string& table) {
  static const std::set<std::string> kTables = {"reports",   "nodes",           "ports",        "counter_port_samples",
                                                "counters_latest", "probe_summaries", "probe_hourly", "probe_minute", "wc_errors",
                                                "wc_error_totals", "events",          "schema_version",
                                                "fabric_nodes", "fabric_ports", "fabric_links", "fabric_port_samples", "fabric_port_rises", "fabric_lfts",
                                                "node_neighbours", "diagnoses"};
  if (!kTables.count(table)) return Result<int64_t>::Error("unknown table " + table);
  std::lock_guard<std::mutex> lock(mu_);
  return conn_->QueryInt("SELECT COUNT(*) FROM " + table);
}


// Runs inside each commit on the writer's connection (the caller holds mu_).
// Registering it replaces SQLite's automatic checkpoint after a commit.
int WriterDb::OnWalCommit(void* store, sqlite3* /*db*/, const char* /*schema*/, int pages) {
  auto* self = static_cast<WriterDb*>(store);
  self->wal_pages_ = pages;
  // The WAL only shrinks when a write restarted it from its start.
  if (pages < self->wal_copied_) self->wal_copied_ = 0;
  // Copies what the checkpoints left, so the next transaction restarts the
  // WAL; busy while CheckpointWal() copies, and then tried at the next commit.
  if (pages >= kWalBackstopPages) (void)self->CopyWal(*self->sqlite_);
  return SQLITE_OK;  // the commit stands whatever the checkpoint did
}

int WriterDb::WalPagesToCopy() const {
  const int pages = wal_pages_, copied = wal_copied_;
  return pages >= copied ? pages - copied : pages;
}

Status WriterDb::CopyWal(Db& db) {
  int log = 0, done = 0;
  if (sqlite3_wal_checkpoint_v2(db.raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &done) != SQLITE_OK)
    return Status::Error("checkpoint of " + options_.path + "-wal into the database file: " + db.ErrorMessage());
  // Frames a reader still needs, and those committed meanwhile, are left
  // for the next call.
  if (log < 0) return Status::Error("checkpoint of " + options_.path + ": the connection is not in WAL mode");
  if (done > 0) wal_copied_ = done;
  return Status::Ok();
}

Result<nlohmann::json> WriterDb::SelectRows(const char* sql) {
  auto q = Q(sql);
  if (!q.ok()) return q.status();
  return Rows(*q.value());
}

}  // namespace rdmascope::collector
