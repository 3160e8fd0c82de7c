#include "bench/fleet_phases.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <string>
#include <thread>

#include <httplib.h>

#include "bench/thread_cpu.h"
#include "collector/ingest/group_commit.h"
#include "common/http_date.h"

namespace rdmascope::collector::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kAckP99TargetMs = 100;  // acknowledgement latency target (p99)

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * static_cast<double>(sorted.size())))];
}

}  // namespace

Phase RunRounds(const std::vector<int>& ports, const std::vector<ReportTemplate>& templates, const FleetArgs& a, int first, int last,
                std::atomic<int64_t>* sim_now, double speed) {
  const bool paced = speed > 0;
  const int64_t interval_ms = a.interval_s * 1000LL;
  const int64_t total = static_cast<int64_t>(last - first) * a.nodes;
  std::atomic<int64_t> next{0}, ok{0}, failed{0}, moved{0}, held{0}, answered_503{0}, retry_after{0};
  const int senders = paced ? a.paced_senders : a.clients;
  std::vector<std::vector<double>> lat(senders);
  const auto deadline = Clock::now() + std::chrono::seconds(a.seconds);
  const auto t0 = Clock::now();
  const double writer0 = ThreadCpuSeconds(kWriterThreadName), checkpoint0 = ThreadCpuSeconds(kCheckpointThreadName);
  const double publisher0 = ThreadCpuSeconds(kPublisherThreadName);
  std::vector<std::thread> clients;
  for (int c = 0; c < senders; ++c)
    clients.emplace_back([&, c] {
      std::vector<std::unique_ptr<httplib::Client>> to;  // one per collector
      for (int port : ports) {
        auto& cli = *to.emplace_back(std::make_unique<httplib::Client>("127.0.0.1", port));
        cli.set_keep_alive(true);
        cli.set_tcp_nodelay(true);
        cli.set_connection_timeout(5, 0);
        cli.set_read_timeout(60, 0);
      }
      for (int64_t n; (n = next++) < total && Clock::now() < deadline;) {
        const int round = first + static_cast<int>(n / a.nodes), node = static_cast<int>(n % a.nodes);
        // Nodes' intervals end spread over the interval, as agents started at
        // different times do.
        const int64_t end = kFleetStartMs + round * interval_ms + node * interval_ms / a.nodes;
        const std::string body =
            templates[node].Fill(ReportId(node, round, end), end, end - interval_ms, end);
        auto s = Clock::now();
        if (paced) {
          s = t0 + std::chrono::microseconds(static_cast<int64_t>(
                       static_cast<double>((round - first) * interval_ms + node * interval_ms / a.nodes) * 1000 / speed));
          std::this_thread::sleep_until(s);
        }
        // The collector's clock: the newest report sent so far.
        int64_t seen = sim_now->load();
        while (end > seen && !sim_now->compare_exchange_weak(seen, end)) {
        }
        const httplib::Headers headers = {{"Authorization", std::string("Bearer ") + kFleetToken},
                                          {"Date", rdmascope::FormatHttpDate(end)}};
        const auto post = [&](size_t k) {
          httplib::Result r = to[(static_cast<size_t>(node) + k) % to.size()]->Post("/api/v1/reports", headers, body,
                                                                                   "application/json");
          if (r && r->status == 503) {
            ++answered_503;
            if (r->has_header("Retry-After")) ++retry_after;
          }
          return r;
        };
        httplib::Result res = post(0);
        for (size_t k = 1; k < to.size() && (!res || res->status >= 500); ++k) {
          res = post(k);
          if (res && res->status < 500) ++moved;
        }
        if ((!res || res->status >= 500) && a.hold_s > 0) {
          ++held;  // kept, and sent again each second until one takes it
          for (const auto give_up = Clock::now() + std::chrono::seconds(a.hold_s);
               (!res || res->status >= 500) && Clock::now() < give_up;) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            for (size_t k = 0; k < to.size() && (!res || res->status >= 500); ++k) res = post(k);
          }
        }
        lat[c].push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
        if (res && res->status == 200) {
          ++ok;
        } else {
          if (failed++ < 3)
            std::fprintf(stderr, "report %s-%d: %s\n", NodeName(node).c_str(), round,
                         res ? (std::to_string(res->status) + " " + res->body.substr(0, 200)).c_str()
                             : httplib::to_string(res.error()).c_str());
        }
      }
    });
  for (std::thread& t : clients) t.join();
  Phase p;
  p.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double writer1 = ThreadCpuSeconds(kWriterThreadName), checkpoint1 = ThreadCpuSeconds(kCheckpointThreadName);
  if (writer0 >= 0 && writer1 >= 0) p.writer_cpu_s = writer1 - writer0;
  if (checkpoint0 >= 0 && checkpoint1 >= 0) p.checkpoint_cpu_s = checkpoint1 - checkpoint0;
  const double publisher1 = ThreadCpuSeconds(kPublisherThreadName);
  if (publisher0 >= 0 && publisher1 >= 0) p.publisher_cpu_s = publisher1 - publisher0;
  p.ok = ok.load();
  p.failed = failed.load();
  p.moved = moved.load();
  p.held = held.load(), p.answered_503 = answered_503.load(), p.retry_after = retry_after.load();
  p.rounds_done = (p.ok + p.failed) / a.nodes;
  for (auto& v : lat) p.latencies_ms.insert(p.latencies_ms.end(), v.begin(), v.end());
  std::sort(p.latencies_ms.begin(), p.latencies_ms.end());
  return p;
}

bool PrintPhase(const char* name, const Phase& p, const FleetArgs& a, int rounds_wanted, double speed) {
  const bool paced = speed > 0;
  const double rate = p.wall_s > 0 ? static_cast<double>(p.ok) / p.wall_s : 0;
  const double need = static_cast<double>(a.nodes) / a.interval_s;
  std::printf("%s: %lld reports (%lld failed) = %lld of %d rounds, %.1f simulated min, in %.1f s wall\n", name,
              static_cast<long long>(p.ok), static_cast<long long>(p.failed), static_cast<long long>(p.rounds_done),
              rounds_wanted, p.rounds_done * a.interval_s / 60.0, p.wall_s);
  if (p.held > 0 || p.answered_503 > 0)
    std::printf("  %lld reports held after no collector took them and sent again; %lld answers 503 (%lld with "
                "Retry-After)\n",
                static_cast<long long>(p.held), static_cast<long long>(p.answered_503),
                static_cast<long long>(p.retry_after));
  if (p.moved > 0)
    std::printf("  %lld reports stored by another collector than their node's own (it did not answer, or 5xx)\n",
                static_cast<long long>(p.moved));
  // Paced, the rate cannot pass speed times the fleet's (and the wall time
  // includes the last answers' latency): there the rate verdict only says
  // that every round was sent and every report answered before its node's
  // next one was due (on the phase's clock).
  // Whether the answers came fast enough is the latency target's verdict.
  const bool keeps_up = paced ? p.rounds_done == rounds_wanted && p.failed == 0 && !p.latencies_ms.empty() &&
                                    p.latencies_ms.back() < a.interval_s * 1000.0 / speed
                              : rate >= need;
  char sent_at[64] = "";
  if (paced) std::snprintf(sent_at, sizeof sent_at, " (sent at %g x that)", speed);
  std::printf("  sustained %.0f reports/s (%.0f probe summaries/s) vs %.0f reports/s the fleet needs%s: %s\n", rate,
              rate * a.rails * a.targets * 2, need, sent_at,
              !keeps_up ? "FALLS BEHIND"
              : paced   ? "every report answered before its node's next was due"
                        : "keeps up");
  const double p50 = Quantile(p.latencies_ms, 0.5), p99 = Quantile(p.latencies_ms, 0.99);
  const double max = p.latencies_ms.empty() ? 0.0 : p.latencies_ms.back();
  if (paced)
    std::printf("  ack latency p50 %.1f ms, p99 %.1f ms (target < %.0f: %s), max %.1f ms; from each report's due time\n",
                p50, p99, kAckP99TargetMs, !p.latencies_ms.empty() && p99 < kAckP99TargetMs ? "met" : "NOT met", max);
  else  // by Little's law, the mean is the reports in flight over the rate: the queue this phase makes itself
    std::printf("  ack latency p50 %.1f ms, p99 %.1f ms, max %.1f ms; mostly the wait behind the other clients' reports "
                "(%d / %.0f per s = %.0f ms on average), so not held against the target\n",
                p50, p99, max, a.clients, rate, rate > 0 ? a.clients * 1000.0 / rate : 0.0);
  if (p.writer_cpu_s >= 0 && p.ok > 0)
    std::printf("  writer thread: %.2f ms CPU per report, busy %.0f %% of the phase (the limit is 100 %%: %.0f reports/s)\n",
                p.writer_cpu_s * 1000 / static_cast<double>(p.ok), 100 * p.writer_cpu_s / p.wall_s,
                static_cast<double>(p.ok) / p.writer_cpu_s);
  if (p.checkpoint_cpu_s >= 0 && p.ok > 0)
    std::printf("  checkpoint thread (beside the writer): %.2f ms CPU per report\n",
                p.checkpoint_cpu_s * 1000 / static_cast<double>(p.ok));
  if (p.publisher_cpu_s >= 0 && p.ok > 0)
    std::printf("  snapshot publisher thread (beside the writer): %.2f ms CPU per report\n",
                p.publisher_cpu_s * 1000 / static_cast<double>(p.ok));
  return p.failed == 0;
}

}  // namespace rdmascope::collector::bench
