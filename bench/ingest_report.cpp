#include "bench/ingest_report.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <httplib.h>

#include "common/http_date.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector::bench {

std::string IngestBenchReport(int n, int probes) {
  const int64_t t = 1700000000000 + n * 10000LL;
  nlohmann::json r = testing::MakeReport("bench-" + std::to_string(n), "node-" + std::to_string(n % 64), t);
  for (int k = 0; k < probes; ++k) r["probes"].push_back(testing::MakeProbe("peer-" + std::to_string(k), t));
  return r.dump();
}

Posted PostReports(int port, const std::vector<std::string>& bodies, int threads, int seconds) {
  using Clock = std::chrono::steady_clock;
  std::atomic<size_t> next{0};
  std::atomic<int> ok{0}, failed{0};
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::seconds(seconds);
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t)
    clients.emplace_back([&] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      cli.set_read_timeout(60, 0);
      for (size_t n; (n = next++) < bodies.size() && Clock::now() < deadline;) {
        auto res = cli.Post("/api/v1/reports", {{"Authorization", "Bearer bench"}, {"Date", rdmascope::HttpDateNow()}},
                            bodies[n], "application/json");
        if (res && res->status == 200) {
          ++ok;
        } else if (failed++ < 3) {
          std::fprintf(stderr, "report %zu: %s\n", n,
                       res ? (std::to_string(res->status) + " " + res->body.substr(0, 200)).c_str()
                           : httplib::to_string(res.error()).c_str());
        }
      }
    });
  for (std::thread& c : clients) c.join();
  return Posted{ok.load(), failed.load(), std::chrono::duration<double>(Clock::now() - t0).count()};
}

}  // namespace rdmascope::collector::bench
