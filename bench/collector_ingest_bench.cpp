// collector_ingest_bench: how fast the collector stores probe summaries
// through its real HTTP path (loopback, in-process server, validation, one
// transaction per report), beside the raw SQLite insert rate of the same rows
// (one prepared statement, one transaction) on the same machine in the same
// run. Prints; asserts nothing. Bounded by --reports and --seconds.
#include <filesystem>
#include <system_error>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "bench/bench_server.h"
#include "collector/api_server.h"
#include "collector/store.h"
#include "collector/store_migrate.h"
#include "common/http_date.h"
#include "tests/collector/test_reports.h"

namespace {

using namespace rdmascope::collector;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Args {
  int reports = 2000;
  int probes = 20;
  int threads = 4;
  int seconds = 30;
  bool sync_full = true;
};

bool ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "-h" || k == "--help") return false;
    if (i + 1 >= argc) return false;
    std::string v = argv[++i];
    if (k == "--reports") a->reports = std::atoi(v.c_str());
    else if (k == "--probes") a->probes = std::atoi(v.c_str());
    else if (k == "--threads") a->threads = std::atoi(v.c_str());
    else if (k == "--seconds") a->seconds = std::atoi(v.c_str());
    else if (k == "--synchronous") a->sync_full = v == "full";
    else return false;
  }
  return a->reports > 0 && a->probes > 0 && a->threads > 0 && a->seconds > 0;
}

json Report(int n, int probes) {
  const int64_t t = 1700000000000 + n * 10000LL;
  json r = testing::MakeReport("bench-" + std::to_string(n), "node-" + std::to_string(n % 64), t);
  for (int k = 0; k < probes; ++k) r["probes"].push_back(testing::MakeProbe("peer-" + std::to_string(k), t));
  return r;
}

// Raw ceiling: the same number of probe_summaries rows, one prepared INSERT, one transaction.
double RawRowsPerSecond(const std::string& path, int64_t rows, bool sync_full) {
  auto db = Db::Open(path);
  if (!db.ok()) return 0;
  Db& d = db.value();
  (void)d.Exec("PRAGMA journal_mode=WAL");
  (void)d.Exec(sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
  if (!ApplyMigrations(d, BuiltinMigrations()).ok()) return 0;
  auto ins = d.Prepare(
      "INSERT INTO probe_summaries(report_id, src, dst, transport, local_device, local_port, remote_host, "
      "interval_start, interval_end, sent, received, lost, loss_ratio, rtt_count, rtt_min, rtt_avg, rtt_p50, rtt_p90, "
      "rtt_p99, rtt_p999, rtt_max, error_count, errors_by_status) VALUES (?1, ?2, ?3, 'rc', 'rxe0', 1, '192.0.2.2', "
      "?4, ?5, 100, 100, 0, 0.0, 100, 20.1, 31.0, 30.2, 40.0, 55.0, 60.0, 61.0, 0, '{}')");
  if (!ins.ok()) return 0;
  auto t0 = Clock::now();
  Transaction tx(d);
  if (!tx.Begin().ok()) return 0;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t t = 1700000000000 + i;
    ins.value().Bind(1, "raw-" + std::to_string(i / 20)).Bind(2, "node-" + std::to_string(i % 64));
    ins.value().Bind(3, "peer-" + std::to_string(i % 20)).Bind(4, t - 10000).Bind(5, t);
    if (!ins.value().Run().ok()) return 0;
  }
  if (!tx.Commit().ok()) return 0;
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return static_cast<double>(rows) / s;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!ParseArgs(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: collector_ingest_bench [--reports N (2000)] [--probes K per report (20)] [--threads T (4)]\n"
                 "                              [--seconds S max (30)] [--synchronous full|normal (full)]\n");
    return 2;
  }
  char tmpl[] = "/tmp/collector_ingest_bench.XXXXXX";
  std::string dir = mkdtemp(tmpl);

  StoreOptions so;
  so.path = dir + "/http.db";
  so.synchronous_full = a.sync_full;
  auto store = Store::Open(so);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  ApiOptions ao;
  ao.tokens = {"bench"};
  ao.log = [](const std::string&) {};
  ApiServer server(*store.value(), ao);
  std::thread serving;
  const int port = bench::ServeInBackground(server, &serving);
  if (port < 0) return 1;

  // Bodies are built before the clock starts: the agent's cost is not the collector's.
  std::vector<std::string> bodies;
  bodies.reserve(a.reports);
  for (int n = 0; n < a.reports; ++n) bodies.push_back(Report(n, a.probes).dump());

  std::atomic<int> next{0}, ok{0}, failed{0};
  const auto deadline = Clock::now() + std::chrono::seconds(a.seconds);
  auto t0 = Clock::now();
  std::vector<std::thread> clients;
  for (int t = 0; t < a.threads; ++t)
    clients.emplace_back([&] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      for (int n; (n = next++) < a.reports && Clock::now() < deadline;) {
        // Date: sent now, as an agent does; the fixed past times are then history, not clock skew.
        auto res = cli.Post("/api/v1/reports", {{"Authorization", "Bearer bench"}, {"Date", rdmascope::HttpDateNow()}}, bodies[n],
                            "application/json");
        (res && res->status == 200 ? ok : failed)++;
      }
    });
  for (std::thread& c : clients) c.join();
  double http_s = std::chrono::duration<double>(Clock::now() - t0).count();
  server.Stop();
  serving.join();

  const int64_t rows = static_cast<int64_t>(ok.load()) * a.probes;
  double http_rate = rows / http_s;
  double raw_rate = RawRowsPerSecond(dir + "/raw.db", rows, a.sync_full);
  std::printf("collector_ingest_bench: %d reports x %d probe summaries, %d client threads, synchronous=%s\n",
              a.reports, a.probes, a.threads, a.sync_full ? "FULL" : "NORMAL");
  std::printf("  HTTP path : %d reports stored (%d failed) in %.2f s = %.0f reports/s, %.0f summaries/s\n", ok.load(),
              failed.load(), http_s, ok.load() / http_s, http_rate);
  std::printf("  raw insert: %lld summaries, one prepared statement, one transaction = %.0f rows/s\n",
              static_cast<long long>(rows), raw_rate);
  std::printf("  ratio     : HTTP path achieves %.1f%% of the raw insert rate\n",
              raw_rate > 0 ? 100.0 * http_rate / raw_rate : 0.0);
  store.value().reset();
  { std::error_code ec; std::filesystem::remove_all(dir, ec); }
  return 0;
}
