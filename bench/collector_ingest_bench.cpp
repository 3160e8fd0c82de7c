// collector_ingest_bench: how fast the collector stores reports through its
// real HTTP path (loopback, in-process server, validation, group commit,
// synchronous=FULL by default) beside a raw SQLite write of the very same rows:
// after the HTTP run, every row the collector stored (all tables but the
// schema version) is read into memory, then inserted into a fresh database
// with the same schema — one prepared INSERT per table, one transaction —
// and only that insert is timed. The ratio is raw time / HTTP time, i.e. the
// share of the raw rate the HTTP path reaches for identical stored rows.
// Tables the collector upserts (nodes, ports, counters_latest, ...) hold
// their final rows on both sides; the HTTP path paid an update per report
// for them, the raw side one insert. Prints; asserts nothing. Bounded by
// --reports and --seconds.
#include <filesystem>
#include <system_error>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>


#include "bench/bench_args.h"
#include "bench/bench_server.h"
#include "bench/ingest_report.h"
#include "bench/thread_cpu.h"
#include "collector/ingest/group_commit.h"
#include "collector/http/api_server.h"
#include "collector/store/storage.h"
#include "collector/store/store_migrate.h"

namespace {

using namespace rdmascope::collector;
using nlohmann::json;
using rdmascope::Status;
using Clock = std::chrono::steady_clock;

struct Args {
  int reports = 2000;
  int probes = 20;
  int threads = 32;
  int seconds = 30;
  bool sync_full = true;
  int http_workers = static_cast<int>(kDefaultHttpWorkers);  // the collector's default
};

bool ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "-h" || k == "--help") return false;
    if (i + 1 >= argc) return false;
    std::string v = argv[++i];
    if (k == "--synchronous") {
      if (v != "full" && v != "normal") return false;
      a->sync_full = v == "full";
      continue;
    }
    int* field = k == "--reports"        ? &a->reports
                 : k == "--probes"       ? &a->probes
                 : k == "--threads"      ? &a->threads
                 : k == "--seconds"      ? &a->seconds
                 : k == "--http-workers" ? &a->http_workers
                                         : nullptr;
    if (!field || !bench::ParseNumberFlag(v.c_str(), field)) return false;
  }
  return a->reports > 0 && a->probes > 0 && a->threads > 0 && a->seconds > 0 && a->http_workers >= 1 &&
         a->http_workers <= static_cast<int>(kMaxHttpWorkers);
}


// One stored row, every column as SQLite typed it.
struct Cell {
  int type = SQLITE_NULL;
  int64_t i = 0;
  double d = 0;
  std::string text;  // TEXT or BLOB bytes
};
struct TableRows {
  std::string name;
  int columns = 0;
  std::vector<std::vector<Cell>> rows;
};

// Every row of every table the collector wrote (not schema_version), read from `path`.
bool ReadStoredRows(const std::string& path, std::vector<TableRows>* out, std::string* err) {
  auto db = Db::Open(path);
  if (!db.ok()) return *err = db.status().message(), false;
  auto names = db.value().Prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_version' "
      "ORDER BY name");
  if (!names.ok()) return *err = names.status().message(), false;
  for (;;) {
    auto more = names.value().Step();
    if (!more.ok()) return *err = more.status().message(), false;
    if (!more.value()) break;
    out->push_back(TableRows{names.value().Text(0), 0, {}});
  }
  for (TableRows& t : *out) {
    auto q = db.value().Prepare("SELECT * FROM \"" + t.name + "\"");
    if (!q.ok()) return *err = q.status().message(), false;
    sqlite3_stmt* s = q.value().raw();
    t.columns = sqlite3_column_count(s);
    for (;;) {
      auto more = q.value().Step();
      if (!more.ok()) return *err = more.status().message(), false;
      if (!more.value()) break;
      std::vector<Cell> row(t.columns);
      for (int c = 0; c < t.columns; ++c) {
        Cell& cell = row[c];
        cell.type = sqlite3_column_type(s, c);
        if (cell.type == SQLITE_INTEGER) cell.i = sqlite3_column_int64(s, c);
        else if (cell.type == SQLITE_FLOAT) cell.d = sqlite3_column_double(s, c);
        else if (cell.type == SQLITE_TEXT || cell.type == SQLITE_BLOB)
          cell.text.assign(static_cast<const char*>(sqlite3_column_blob(s, c)), sqlite3_column_bytes(s, c));
      }
      t.rows.push_back(std::move(row));
    }
  }
  return true;
}

// Raw ceiling: the same rows into a fresh database with the same schema, one
// prepared INSERT per table, one transaction. Returns seconds (< 0: failed).
double RawInsertSeconds(const std::string& path, const std::vector<TableRows>& tables, bool sync_full,
                        std::string* err) {
  auto db = Db::Open(path);
  if (!db.ok()) return *err = db.status().message(), -1;
  Db& d = db.value();
  (void)d.Exec("PRAGMA journal_mode=WAL");
  (void)d.Exec(sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
  if (auto m = ApplyMigrations(d, BuiltinMigrations()); !m.ok()) return *err = m.status().message(), -1;
  std::vector<Stmt> inserts;
  for (const TableRows& t : tables) {
    // OR REPLACE: rows the migrations seed themselves (one-row state tables) are there already.
    std::string sql = "INSERT OR REPLACE INTO \"" + t.name + "\" VALUES (";
    for (int c = 0; c < t.columns; ++c) sql += c ? ",?" : "?";
    auto ins = d.Prepare(sql + ")");
    if (!ins.ok()) return *err = ins.status().message(), -1;
    inserts.push_back(std::move(ins.value()));
  }
  auto t0 = Clock::now();
  Transaction tx(d);
  if (Status s = tx.Begin(); !s.ok()) return *err = s.message(), -1;
  for (size_t k = 0; k < tables.size(); ++k) {
    Stmt& ins = inserts[k];
    for (const std::vector<Cell>& row : tables[k].rows) {
      for (int c = 0; c < tables[k].columns; ++c) {
        const Cell& cell = row[c];
        if (cell.type == SQLITE_INTEGER) ins.Bind(c + 1, cell.i);
        else if (cell.type == SQLITE_FLOAT) ins.Bind(c + 1, cell.d);
        else if (cell.type == SQLITE_TEXT) ins.Bind(c + 1, std::string_view(cell.text));
        else if (cell.type == SQLITE_BLOB)
          sqlite3_bind_blob(ins.raw(), c + 1, cell.text.data(), static_cast<int>(cell.text.size()), SQLITE_STATIC);
        else ins.BindNull(c + 1);
      }
      if (Status s = ins.Run(); !s.ok()) return *err = tables[k].name + ": " + s.message(), -1;
    }
  }
  if (Status s = tx.Commit(); !s.ok()) return *err = s.message(), -1;
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!ParseArgs(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: collector_ingest_bench [--reports N (2000)] [--probes K per report (20)] [--threads T concurrent clients (32)]\n"
                 "                              [--seconds S max (30)] [--synchronous full|normal (full)]\n"
                 "                              [--http-workers W (the collector's default, %zu)]\n",
                 kDefaultHttpWorkers);
    return 2;
  }
  char tmpl[] = "/tmp/collector_ingest_bench.XXXXXX";
  std::string dir = mkdtemp(tmpl);

  StoreOptions so;
  so.path = dir + "/http.db";
  so.synchronous_full = a.sync_full;
  auto store = Storage::Open(so);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  ApiOptions ao;
  ao.tokens = {"bench"};
  ao.http_workers = a.http_workers;
  // The clients share this host's one address; past the default cap they would get 503s.
  if (static_cast<size_t>(a.threads) > ao.http_max_per_client) {
    std::printf("collector: connections per client address raised from %zu (its default) to %d, the clients\n",
                ao.http_max_per_client, a.threads);
    ao.http_max_per_client = static_cast<size_t>(a.threads);
  }
  ao.log = [](const std::string&) {};
  // Destroyed before the store: its group committer's threads use the store until then.
  std::optional<ApiServer> server;
  server.emplace(*store.value(), ao);
  std::thread serving;
  const int port = bench::ServeInBackground(*server, &serving);
  if (port < 0) return 1;

  // Bodies are built before the clock starts: the agent's cost is not the collector's.
  std::vector<std::string> bodies;
  bodies.reserve(a.reports);
  for (int n = 0; n < a.reports; ++n) bodies.push_back(bench::IngestBenchReport(n, a.probes));

  const double writer0 = bench::ThreadCpuSeconds(kWriterThreadName);
  const double publisher0 = bench::ThreadCpuSeconds(kPublisherThreadName);
  const bench::Posted posted = bench::PostReports(port, bodies, a.threads, a.seconds);
  const double http_s = posted.seconds;
  const double writer_s = bench::ThreadCpuSeconds(kWriterThreadName) - writer0;
  const double publisher_s = bench::ThreadCpuSeconds(kPublisherThreadName) - publisher0;
  server->Stop();
  serving.join();
  server.reset();

  store.value().reset();  // closes the database: every acknowledged row is in http.db

  std::vector<TableRows> tables;
  std::string err;
  if (!ReadStoredRows(dir + "/http.db", &tables, &err)) {
    std::fprintf(stderr, "collector_ingest_bench: reading the stored rows failed: %s\n", err.c_str());
    return 1;
  }
  int64_t rows = 0;
  std::string per_table;
  for (const TableRows& t : tables) {
    rows += static_cast<int64_t>(t.rows.size());
    if (!t.rows.empty()) per_table += " " + t.name + "=" + std::to_string(t.rows.size());
  }
  const double raw_s = RawInsertSeconds(dir + "/raw.db", tables, a.sync_full, &err);
  if (raw_s < 0) {
    std::fprintf(stderr, "collector_ingest_bench: raw insert failed: %s\n", err.c_str());
    return 1;
  }
  std::printf("collector_ingest_bench: %d reports x %d probe summaries, %d concurrent clients, %d HTTP workers, synchronous=%s\n",
              a.reports, a.probes, a.threads, a.http_workers, a.sync_full ? "FULL" : "NORMAL");
  std::printf("  HTTP path : %d reports stored (%d failed) in %.2f s = %.0f reports/s, %.0f stored rows/s\n", posted.ok,
              posted.failed, http_s, posted.ok / http_s, rows / http_s);
  if (writer0 >= 0 && posted.ok > 0)
    std::printf("              the store's writer thread used %.2f s CPU (%.2f ms per report), busy %.0f %% of that time\n",
                writer_s, 1000 * writer_s / posted.ok, 100 * writer_s / http_s);
  if (publisher0 >= 0 && posted.ok > 0)
    std::printf("              its snapshot publisher thread (beside the writer) used %.2f s CPU (%.2f ms per report)\n",
                publisher_s, 1000 * publisher_s / posted.ok);
  std::printf("  raw insert: the same %lld rows (%s), one prepared INSERT per table, one transaction, in %.2f s = %.0f rows/s\n",
              static_cast<long long>(rows), per_table.c_str() + (per_table.empty() ? 0 : 1), raw_s, rows / raw_s);
  std::printf("  ratio     : HTTP path achieves %.2f of the raw insert rate (target >= 0.50: %s)\n", raw_s / http_s,
              raw_s / http_s >= 0.5 ? "met" : "NOT met");
  { std::error_code ec; std::filesystem::remove_all(dir, ec); }
  return posted.failed == 0 ? 0 : 1;
}
