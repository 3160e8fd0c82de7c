// pg_ingest_bench: how fast the collector stores reports on PostgreSQL
// through its real HTTP path (loopback, in-process server, validation,
// group commit, COPY) beside a raw COPY of the very same rows, on a real
// PostgreSQL 15 started for the run (tests/support/postgres_server.h:
// fsync off, printed). After the HTTP run every row the collector stored
// (every table but the schema version) is read out as COPY text; a fresh
// database gets the same schema, and the text goes back in with one COPY
// per table in one transaction: only that is timed. The ratio is raw time /
// HTTP time, the share of the raw rate the HTTP path reaches for identical
// stored rows (collector_ingest_bench's measure, on the other engine).
// Tables the collector upserts hold their final rows on both sides; the
// HTTP path paid an update per report for them, the raw side one row.
// Bounded by --reports and --seconds; exit 1 when a report or a step failed
// or the raw side did not store every row.
#include <libpq-fe.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>


#include "bench/bench_args.h"
#include "bench/bench_server.h"
#include "bench/ingest_report.h"
#include "bench/fleet_reports.h"
#include "bench/thread_cpu.h"
#include "collector/http/api_server.h"
#include "collector/ingest/group_commit.h"
#include "collector/store/pg_db.h"
#include "collector/store/pg_migrate.h"
#include "collector/store/pg_storage.h"
#include "tests/support/postgres_server.h"

namespace {

using namespace rdmascope::collector;
using nlohmann::json;
using rdmascope::Result;
using rdmascope::Status;
using Clock = std::chrono::steady_clock;

struct Args {
  int reports = 2000;
  int probes = 20;
  int threads = 32;
  int seconds = 60;
  int http_workers = static_cast<int>(kDefaultHttpWorkers);
  int rails = 0, targets = 20;  // rails > 0: the fleet load's reports (R rails x T targets x 2, a port per rail)
};

bool ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "-h" || k == "--help" || i + 1 >= argc) return false;
    int* field = k == "--reports"        ? &a->reports
                 : k == "--probes"       ? &a->probes
                 : k == "--threads"      ? &a->threads
                 : k == "--seconds"      ? &a->seconds
                 : k == "--http-workers" ? &a->http_workers
                 : k == "--rails"        ? &a->rails
                 : k == "--targets"      ? &a->targets
                                         : nullptr;
    if (!field || !bench::ParseNumberFlag(argv[++i], field)) return false;
  }
  return a->reports > 0 && a->reports <= 1000000 && a->probes > 0 && a->probes <= 4096 && a->threads > 0 &&
         a->threads <= 256 && a->seconds > 0 && a->seconds <= 3600 && a->http_workers >= 1 &&
         a->http_workers <= static_cast<int>(kMaxHttpWorkers) && a->rails >= 0 && a->rails <= 64 && a->targets >= 1 &&
         a->targets <= 256;
}

// With --rails, report n: node n mod 2,000's report of the fleet load tool in round n / 2,000.
std::string Body(int n, const std::vector<bench::ReportTemplate>& fleet) {
  const int node = n % static_cast<int>(fleet.size()), round = n / static_cast<int>(fleet.size());
  const int64_t end = 1700000000000 + round * 10000LL + node;
  return fleet[static_cast<size_t>(node)].Fill(bench::ReportId(node, round, end), end, end - 10000, end);
}


struct TableText {
  std::string name;
  std::string text;  // COPY text format
  int64_t rows = 0;
};

// The tables the collector writes (partitioned parents, not their
// partitions; not schema_version), in name order.
Result<std::vector<std::string>> Tables(PgDb& db) {
  auto r = db.Query(
      "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
      "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
      "AND c.relname <> 'schema_version' ORDER BY 1");
  if (!r.ok()) return r.status();
  std::vector<std::string> out;
  for (int i = 0; i < r.value().rows(); ++i) out.emplace_back(r.value().Text(i, 0));
  return out;
}

// Every row of table as COPY text.
Status CopyOut(PGconn* c, TableText* t) {
  const std::string sql = "COPY (SELECT * FROM \"" + t->name + "\") TO STDOUT";
  PGresult* r = PQexec(c, sql.c_str());
  const bool started = PQresultStatus(r) == PGRES_COPY_OUT;
  PQclear(r);
  if (!started) return Status::Error("COPY " + t->name + " TO STDOUT: " + PQerrorMessage(c));
  char* line = nullptr;
  int n;
  while ((n = PQgetCopyData(c, &line, 0)) > 0) {
    t->text.append(line, static_cast<size_t>(n));
    ++t->rows;
    PQfreemem(line);
  }
  r = PQgetResult(c);
  const bool ok = n == -1 && PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  while ((r = PQgetResult(c))) PQclear(r);
  return ok ? Status::Ok() : Status::Error("COPY " + t->name + " TO STDOUT ended: " + PQerrorMessage(c));
}

// The text into table by one COPY FROM STDIN.
Status CopyIn(PGconn* c, const TableText& t) {
  const std::string sql = "COPY \"" + t.name + "\" FROM STDIN";
  PGresult* r = PQexec(c, sql.c_str());
  const bool started = PQresultStatus(r) == PGRES_COPY_IN;
  PQclear(r);
  if (!started) return Status::Error("COPY " + t.name + " FROM STDIN: " + PQerrorMessage(c));
  if (!t.text.empty() && PQputCopyData(c, t.text.data(), static_cast<int>(t.text.size())) != 1)
    return Status::Error("COPY " + t.name + " data: " + PQerrorMessage(c));
  if (PQputCopyEnd(c, nullptr) != 1) return Status::Error("COPY " + t.name + " end: " + PQerrorMessage(c));
  r = PQgetResult(c);
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  const std::string why = ok ? "" : PQerrorMessage(c);
  PQclear(r);
  while ((r = PQgetResult(c))) PQclear(r);
  return ok ? Status::Ok() : Status::Error("COPY " + t.name + ": " + why);
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "pg_ingest_bench: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!ParseArgs(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: pg_ingest_bench [--reports N (2000)] [--probes K per report (20)] [--threads T concurrent "
                 "clients (32)]\n"
                 "                       [--seconds S max (60)] [--http-workers W (the collector's default, %zu)]\n"
                 "                       [--rails R [--targets T (20)]: the fleet load's reports instead]\n"
                 "  Reports through the collector's HTTP path into a PostgreSQL 15 started for the run (a scratch\n"
                 "  cluster, removed at the end), beside a raw COPY of the very rows it stored.\n",
                 kDefaultHttpWorkers);
    return 2;
  }
  std::string error;
  auto pg = rdmascope::testsupport::StartPostgresOrNull(&error);
  if (!pg) return Fail("no PostgreSQL server: " + (error.empty() ? std::string("postgresql is not installed") : error));
  if (auto c = PgDb::Connect(pg->SocketConninfo()); !c.ok() || !c.value().Exec("CREATE DATABASE ours").ok() ||
                                                     !c.value().Exec("CREATE DATABASE raw").ok())
    return Fail("creating the two databases failed");

  // The HTTP path, into database "ours".
  auto store = OpenPostgresStorage(pg->SocketConninfo("ours"), "", StoreOptions{}, 1700000000000);
  if (!store.ok()) return Fail(store.status().message());
  ApiOptions ao;
  ao.tokens = {"bench"};
  ao.http_workers = static_cast<size_t>(a.http_workers);
  ao.http_max_per_client = std::max(ao.http_max_per_client, static_cast<size_t>(a.threads));
  ao.log = [](const std::string&) {};
  std::optional<ApiServer> server;
  server.emplace(*store.value(), ao);
  std::thread serving;
  const int port = bench::ServeInBackground(*server, &serving);
  if (port < 0) return 1;
  std::vector<std::string> bodies;
  bodies.reserve(static_cast<size_t>(a.reports));
  std::vector<bench::ReportTemplate> fleet;
  if (a.rails > 0) {
    bench::FleetArgs fa;
    fa.rails = a.rails, fa.targets = a.targets;
    for (int i = 0; i < fa.nodes; ++i) fleet.push_back(bench::MakeReportTemplate(i, fa));
  }
  for (int n = 0; n < a.reports; ++n)
    bodies.push_back(fleet.empty() ? bench::IngestBenchReport(n, a.probes) : Body(n, fleet));
  const double writer0 = bench::ThreadCpuSeconds(kWriterThreadName);
  const bench::Posted posted = bench::PostReports(port, bodies, a.threads, a.seconds);
  const double http_s = posted.seconds;
  const double writer_s = bench::ThreadCpuSeconds(kWriterThreadName) - writer0;
  server->Stop();
  serving.join();
  server.reset();
  store.value().reset();

  // Every stored row out as COPY text.
  auto ours = PgDb::Connect(pg->SocketConninfo("ours"));
  if (!ours.ok()) return Fail(ours.status().message());
  auto names = Tables(ours.value());
  if (!names.ok()) return Fail(names.status().message());
  std::vector<TableText> tables;
  int64_t rows = 0;
  size_t bytes = 0;
  std::string per_table;
  for (const std::string& name : names.value()) {
    TableText t{name, "", 0};
    if (Status s = CopyOut(ours.value().raw(), &t); !s.ok()) return Fail(s.message());
    rows += t.rows, bytes += t.text.size();
    if (t.rows) per_table += " " + name + "=" + std::to_string(t.rows);
    tables.push_back(std::move(t));
  }
  // The raw side: the same schema and partitions, the seeded rows cleared, then timed.
  auto raw = PgDb::Connect(pg->SocketConninfo("raw"));
  if (!raw.ok()) return Fail(raw.status().message());
  if (auto m = ApplyPgMigrations(raw.value(), BuiltinPgMigrations()); !m.ok()) return Fail(m.status().message());
  auto from = ours.value().QueryInt("SELECT coalesce(min(interval_start), 0) FROM probe_summaries");
  if (!from.ok()) return Fail(from.status().message());
  if (auto p = EnsurePartitions(raw.value(), from.value() - 86400000, 3); !p.ok()) return Fail(p.status().message());
  for (const TableText& t : tables)
    if (Status s = raw.value().Exec("TRUNCATE \"" + t.name + "\""); !s.ok()) return Fail(s.message());
  const auto r0 = Clock::now();
  if (Status s = raw.value().Exec("BEGIN"); !s.ok()) return Fail(s.message());
  for (const TableText& t : tables)
    if (Status s = CopyIn(raw.value().raw(), t); !s.ok()) return Fail(s.message());
  if (Status s = raw.value().Exec("COMMIT"); !s.ok()) return Fail(s.message());
  const double raw_s = std::chrono::duration<double>(Clock::now() - r0).count();
  for (const TableText& t : tables) {
    auto n = raw.value().QueryInt("SELECT count(*) FROM \"" + t.name + "\"");
    if (!n.ok() || n.value() != t.rows) return Fail("the raw copy of " + t.name + " did not store every row");
  }
  auto settings = raw.value().Query("SELECT current_setting('server_version'), current_setting('fsync'), "
                                    "current_setting('synchronous_commit'), current_setting('shared_buffers')");
  if (!settings.ok()) return Fail(settings.status().message());
  const PgResult& v = settings.value();
  if (a.rails > 0)
    std::printf("pg_ingest_bench --reports %d --rails %d --targets %d --threads %d --http-workers %d (the fleet load's "
                "reports: %d probe summaries and %d ports each)\n",
                a.reports, a.rails, a.targets, a.threads, a.http_workers, a.rails * a.targets * 2, a.rails);
  else
    std::printf("pg_ingest_bench --reports %d --probes %d --threads %d --http-workers %d\n", a.reports, a.probes,
                a.threads, a.http_workers);
  std::printf("server: PostgreSQL %s on a unix socket, fsync=%s synchronous_commit=%s shared_buffers=%s (the test server)\n",
              std::string(v.Text(0, 0)).c_str(), std::string(v.Text(0, 1)).c_str(), std::string(v.Text(0, 2)).c_str(),
              std::string(v.Text(0, 3)).c_str());
  std::printf("  HTTP path: %d reports stored (%d failed) in %.2f s = %.0f reports/s, %.0f stored rows/s\n", posted.ok,
              posted.failed, http_s, posted.ok / http_s, static_cast<double>(rows) / http_s);
  if (writer0 >= 0 && posted.ok > 0)
    std::printf("             the store's writer thread used %.2f s CPU (%.2f ms per report), busy %.0f %% of that time; "
                "the rest of its time it waits on the server\n",
                writer_s, 1000 * writer_s / posted.ok, 100 * writer_s / http_s);
  std::printf("  raw COPY : the same %lld rows (%s; %.1f MB of COPY text), one COPY per table, one transaction, in "
              "%.2f s = %.0f rows/s\n",
              static_cast<long long>(rows), per_table.c_str() + (per_table.empty() ? 0 : 1),
              static_cast<double>(bytes) / 1e6, raw_s, static_cast<double>(rows) / raw_s);
  std::printf("  ratio    : HTTP path achieves %.2f of the raw COPY rate (target >= 0.50: %s)\n", raw_s / http_s,
              raw_s / http_s >= 0.5 ? "met" : "NOT met");
  return posted.failed == 0 && posted.ok == a.reports ? 0 : 1;
}
