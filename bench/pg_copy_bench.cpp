// pg_copy_bench: how fast the PostgreSQL backend stores probe summaries (the
// bulk of every report) beside a raw COPY of the very same rows, on a real
// PostgreSQL 15 started for the run (tests/support/postgres_server.h, whose
// settings are printed: the test server runs without fsync).
//
// "ours": per batch of reports (a group commit), each report's rows made into
// COPY text from the read model's rows (AppendProbeRow) and sent by
// CopyProbeRows in one transaction. "raw": the table emptied, then the same
// batches' text, made beforehand, sent by the same COPY in one transaction
// each; only the sending is timed. The ratio is raw time / ours, i.e. the
// share of the raw rate our path reaches. Both runs must store every row, or
// the tool exits 1. Bounded by --reports.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_args.h"
#include "collector/store/pg_migrate.h"
#include "collector/store/pg_probe_copy.h"
#include "tests/support/postgres_server.h"

namespace {

using namespace rdmascope::collector;
using rdmascope::Status;
using Clock = std::chrono::steady_clock;

struct Args {
  int reports = 2000;
  int rows = 587;  // per report: 2,000 nodes x 8 rails in the fleet simulator
  int batch = 16;
};

bool ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "-h" || k == "--help" || i + 1 >= argc) return false;
    const char* v = argv[++i];
    int* out = k == "--reports" ? &a->reports : k == "--rows-per-report" ? &a->rows : k == "--batch" ? &a->batch : nullptr;
    if (!out || !bench::ParseNumberFlag(v, out) || *out < 1 || *out > 1000000) return false;
  }
  return true;
}

double ThreadCpuS() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// The rows of one report of node n: targets x rails x transports, measured.
std::vector<ProbeRow> ReportRows(int n, int rows, int64_t at) {
  const auto report_id = std::make_shared<const std::string>("node" + std::to_string(n) + "-" + std::to_string(at));
  std::vector<ProbeRow> out(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) {
    ProbeRow& r = out[static_cast<size_t>(i)];
    r.report_id = report_id;
    r.src = Intern("node" + std::to_string(n));
    r.dst = Intern("node" + std::to_string((n + 1 + i / 16) % 100000));
    r.transport = Intern(i % 2 ? "rc" : "ud");
    r.rail = Intern(std::to_string(i / 2 % 8));
    r.local_device = Intern("mlx5_" + std::to_string(i / 2 % 8)), r.local_port = 1;
    r.remote_device = Intern("mlx5_" + std::to_string(i / 2 % 8)), r.remote_port = 1;
    r.interval_start = at - 10000, r.interval_end = at;
    r.sent = 100, r.received = 100 - i % 3, r.lost = i % 3, r.loss_ratio = (i % 3) / 100.0;
    r.rtt_count = r.received;
    r.rtt_min = 2.1 + i % 7 * 0.01, r.rtt_avg = 2.6, r.rtt_p50 = 2.5, r.rtt_p90 = 3.1, r.rtt_p99 = 4.75;
    r.rtt_p999 = 6.5, r.rtt_max = 7.25, r.network_p50 = 1.9, r.network_p99 = 3.9;
    r.responder_p50 = 0.31, r.responder_p99 = 0.62, r.read_p50 = 0.05, r.read_p99 = 0.09;
  }
  return out;
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "pg_copy_bench: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!ParseArgs(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: pg_copy_bench [--reports N] [--rows-per-report N] [--batch N]\n"
                 "  Probe summaries into a PostgreSQL 15 started for the run (a scratch cluster,\n"
                 "  removed at the end): our COPY path beside a raw COPY of the same rows.\n"
                 "  --reports N          reports stored (default 2000)\n"
                 "  --rows-per-report N  probe summaries per report (default 587: 2,000 nodes x 8 rails)\n"
                 "  --batch N            reports per transaction, as the group commit makes them (default 16)\n");
    return 2;
  }
  std::string error;
  std::unique_ptr<rdmascope::testsupport::PostgresServer> pg = rdmascope::testsupport::StartPostgresOrNull(&error);
  if (!pg) return Fail("no PostgreSQL server: " + error);
  auto conn = PgDb::Connect(pg->SocketConninfo());
  if (!conn.ok()) return Fail(conn.status().message());
  PgDb& db = conn.value();
  const int64_t at = 1800000000000;
  if (auto m = ApplyPgMigrations(db, BuiltinPgMigrations()); !m.ok()) return Fail(m.status().message());
  if (auto p = EnsurePartitions(db, at - 86400000, 2); !p.ok()) return Fail(p.status().message());
  auto version = db.Query("SELECT current_setting('server_version'), current_setting('fsync'), "
                          "current_setting('synchronous_commit'), current_setting('shared_buffers')");
  if (!version.ok()) return Fail(version.status().message());
  const PgResult& v = version.value();
  std::printf("pg_copy_bench --reports %d --rows-per-report %d --batch %d\n", a.reports, a.rows, a.batch);
  std::printf("server: PostgreSQL %s on a unix socket, fsync=%s synchronous_commit=%s shared_buffers=%s (the test server)\n",
              std::string(v.Text(0, 0)).c_str(), std::string(v.Text(0, 1)).c_str(),
              std::string(v.Text(0, 2)).c_str(), std::string(v.Text(0, 3)).c_str());

  std::vector<std::vector<ProbeRow>> reports;
  reports.reserve(static_cast<size_t>(a.reports));
  for (int n = 0; n < a.reports; ++n) reports.push_back(ReportRows(n, a.rows, at));
  const int64_t total = static_cast<int64_t>(a.reports) * a.rows;

  auto count = [&db]() -> int64_t {
    auto n = db.Query("SELECT count(*) FROM probe_summaries");
    return n.ok() ? n.value().OptInt(0, 0).value_or(-1) : -1;
  };
  // Ours: text made and sent per batch.
  std::vector<CopyRows> texts;
  double ours_s = 0, build_cpu_s = 0;
  for (int first = 0; first < a.reports; first += a.batch) {
    const auto t0 = Clock::now();
    const double c0 = ThreadCpuS();
    CopyRows rows;
    for (int n = first; n < std::min(a.reports, first + a.batch); ++n)
      for (const ProbeRow& r : reports[static_cast<size_t>(n)]) AppendProbeRow(r, &rows);
    build_cpu_s += ThreadCpuS() - c0;
    if (Status s = db.Exec("BEGIN"); !s.ok()) return Fail(s.message());
    if (auto c = CopyProbeRows(db, rows); !c.ok()) return Fail(c.status().message());
    if (Status s = db.Exec("COMMIT"); !s.ok()) return Fail(s.message());
    ours_s += std::chrono::duration<double>(Clock::now() - t0).count();
    texts.push_back(std::move(rows));
  }
  if (int64_t n = count(); n != total) return Fail("ours stored " + std::to_string(n) + " of " + std::to_string(total) + " rows");
  if (Status s = db.Exec("TRUNCATE probe_summaries"); !s.ok()) return Fail(s.message());
  // Raw: the same text, made beforehand.
  double raw_s = 0;
  for (const CopyRows& rows : texts) {
    const auto t0 = Clock::now();
    if (Status s = db.Exec("BEGIN"); !s.ok()) return Fail(s.message());
    if (auto c = db.CopyIn(ProbeCopySql(), rows); !c.ok()) return Fail(c.status().message());
    if (Status s = db.Exec("COMMIT"); !s.ok()) return Fail(s.message());
    raw_s += std::chrono::duration<double>(Clock::now() - t0).count();
  }
  if (int64_t n = count(); n != total) return Fail("raw stored " + std::to_string(n) + " of " + std::to_string(total) + " rows");

  size_t bytes = 0;
  for (const CopyRows& t : texts) bytes += t.text().size();
  std::printf("rows %lld in %zu transactions, %.1f MB of COPY text (%.0f bytes a row)\n", static_cast<long long>(total),
              texts.size(), static_cast<double>(bytes) / 1e6, static_cast<double>(bytes) / static_cast<double>(total));
  std::printf("ours  %.3f s  %.0f rows/s  (making the text: %.3f s CPU, %.2f us a row)\n", ours_s,
              static_cast<double>(total) / ours_s, build_cpu_s, build_cpu_s * 1e6 / static_cast<double>(total));
  std::printf("raw   %.3f s  %.0f rows/s\n", raw_s, static_cast<double>(total) / raw_s);
  std::printf("ratio raw/ours %.2f (the share of the raw COPY rate our path reaches)\n", raw_s / ours_s);
  return 0;
}
