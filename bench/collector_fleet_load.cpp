// collector_fleet_load: a synthetic fleet against an in-process collector on
// loopback. N nodes x R rails x T targets x 2 transports report with
// simulated time (the collector's clock follows the fleet's), so minutes of
// history are produced faster than real time.
//
// Prints: reports/s sustained against what the fleet needs (N / interval),
// acknowledgement latency p50/p99/max and errors; then the time of /metrics,
// /api/v1/matrix and a pinglist with the row count behind each; the same
// again after the history has doubled; then the most the collector takes;
// then a phase in real time; and the database bytes per node per day
// against the 50 MB budget.
//
// The two history phases (--minutes each) send every report at its due time
// on a clock that runs --history-speed times real time (1.5: the fleet's
// rate and half again), and count its latency from then, so a collector that
// falls behind shows it. Agents do not wait for each other, so neither do
// these reports: --paced-senders (256) may be in flight at once, and a report
// only waits for a free sender when that many are; the wait then counts in
// its latency. The capacity phase (--capacity-minutes) sends as fast as the
// collector acknowledges, with --clients reports in flight: its rate is the
// most the collector sustains, its latency that queue's (by Little's law,
// clients / rate), not what an agent sees. --history-speed 0 runs the
// history phases that way too. The paced phase (--paced-seconds) sends each
// report at its due time in real time.
//
// The collector runs with its shipped defaults (HTTP workers unless
// --http-workers, group commit, synchronous=FULL) but for a body limit that
// fits any --rails/--targets.
//
// Bounded: sizes (N <= 100000, R <= 64,
// T <= 256), --clients <= 256, and --seconds of wall time for each phase (a
// phase cut short says how much history it reached). Exit 1 when a
// report or a read failed, or a read's row count is not what the fleet implies.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "bench/bench_args.h"
#include "bench/bench_server.h"
#include "bench/fleet_storage.h"
#include "bench/thread_cpu.h"
#include "collector/api_server.h"
#include "collector/group_commit.h"
#include "collector/retention_worker.h"
#include "collector/store.h"
#include "common/http_date.h"
#include "tests/support/test_reports.h"

namespace {

using namespace rdmascope::collector;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int64_t kT0 = 1750000000000;  // simulated start
constexpr double kAckP99TargetMs = 100;  // acknowledgement latency target (p99)
constexpr char kToken[] = "fleet-load-token";
constexpr double kBudgetBytesPerNodeDay = 50.0 * 1024 * 1024;

struct Args {
  int nodes = 2000, rails = 8, targets = 20, interval_s = 10, minutes = 10, clients = 32, seconds = 600;
  int paced_seconds = 60, paced_senders = 256, capacity_minutes = 2;
  double history_speed = 1.5;  // simulated time per real time in the history phases; 0: as fast as acknowledged
  int http_workers = static_cast<int>(kDefaultHttpWorkers);  // the collector's own default
  int rollup_slice_ms = static_cast<int>(RetentionPolicy{}.rollup_slice_ms);  // the collector's own default
};

bool ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) return false;
    const char* text = argv[++i];
    if (k == "--history-speed") {
      if (!bench::ParseNumberFlag(text, &a->history_speed)) return false;
      continue;
    }
    int* field = k == "--capacity-minutes"  ? &a->capacity_minutes
                 : k == "--nodes"           ? &a->nodes
                 : k == "--rails"           ? &a->rails
                 : k == "--targets"         ? &a->targets
                 : k == "--interval-s"      ? &a->interval_s
                 : k == "--minutes"         ? &a->minutes
                 : k == "--clients"         ? &a->clients
                 : k == "--seconds"         ? &a->seconds
                 : k == "--paced-seconds"   ? &a->paced_seconds
                 : k == "--paced-senders"   ? &a->paced_senders
                 : k == "--http-workers"    ? &a->http_workers
                 : k == "--rollup-slice-ms" ? &a->rollup_slice_ms
                                            : nullptr;
    if (!field || !bench::ParseNumberFlag(text, field)) return false;
  }
  return a->nodes >= 2 && a->nodes <= 100000 && a->rails >= 1 && a->rails <= 64 && a->targets >= 1 &&
         a->targets < a->nodes && a->targets <= 256 && a->interval_s >= 1 && a->minutes >= 1 && a->clients >= 1 &&
         a->clients <= 256 && a->seconds >= 1 && a->paced_seconds >= 0 && a->paced_seconds <= 3600 && a->paced_senders >= 1 &&
         (a->history_speed == 0 || (a->history_speed >= 0.1 && a->history_speed <= 100)) && a->capacity_minutes >= 0 &&
         a->paced_senders <= 1024 && a->http_workers >= 1 && a->http_workers <= static_cast<int>(kMaxHttpWorkers) &&
         a->rollup_slice_ms >= 10 && 60000 % a->rollup_slice_ms == 0;
}

std::string NodeName(int i) { return "node-" + std::to_string(i); }

// A node's report as text with holes for what changes each round: the
// report id, generated_at and each probe interval's start and end.
struct Template {
  std::vector<std::string> parts;  // text between holes
  std::vector<char> holes;         // 'I' id, 'G' generated_at, 'S' start, 'E' end
  std::string Fill(const std::string& id, int64_t generated, int64_t start, int64_t end) const {
    std::string out;
    out.reserve(parts.size() * 64 + 4096);
    for (size_t i = 0; i < parts.size(); ++i) {
      out += parts[i];
      if (i < holes.size()) {
        switch (holes[i]) {
          case 'I': out += id; break;
          case 'G': out += std::to_string(generated); break;
          case 'S': out += std::to_string(start); break;
          default: out += std::to_string(end); break;
        }
      }
    }
    return out;
  }
};

constexpr int64_t kHoleG = 911111111111111, kHoleS = 922222222222222, kHoleE = 933333333333333;
constexpr char kHoleI[] = "@@REPORT_ID@@";

Template MakeTemplate(int node, const Args& a) {
  json r = rdmascope::collector::testing::MakeReport(kHoleI, NodeName(node), kHoleG);
  std::string rails;
  json devices = json::array();
  json dev0 = r["inventory"]["devices"][0];
  for (int k = 0; k < a.rails; ++k) {
    rails += (k ? "," : "") + std::to_string(k);
    json d = dev0;
    d["name"] = "mlx5_" + std::to_string(k);
    devices.push_back(d);
  }
  r["inventory"]["devices"] = devices;
  r["labels"] = {{"group", "rack" + std::to_string(node / 40)}, {"rails", rails}};
  for (int k = 0; k < a.rails; ++k)
    for (int j = 1; j <= a.targets; ++j) {
      const int dst = (node + j * std::max(1, a.nodes / (a.targets + 1))) % a.nodes;
      for (const char* transport : {"rc", "ud"}) {
        json p = rdmascope::collector::testing::MakeProbe(NodeName(dst == node ? (node + 1) % a.nodes : dst), kHoleE, 0,
                                                          100, transport, 8.0 + (node + j) % 7);
        p["interval_start_ms"] = kHoleS;
        p["rail"] = std::to_string(k);
        p["local"]["device"] = "mlx5_" + std::to_string(k);
        r["probes"].push_back(p);
      }
    }
  const std::string text = r.dump();
  Template t;
  size_t pos = 0;
  const std::string holes[] = {std::string("\"") + kHoleI + "\"", std::to_string(kHoleG), std::to_string(kHoleS),
                               std::to_string(kHoleE)};
  const char names[] = {'I', 'G', 'S', 'E'};
  // Next occurrence of each hole, found again only after it is consumed
  // (one pass over the text, not one per hole).
  size_t next[4];
  for (int h = 0; h < 4; ++h) next[h] = text.find(holes[h]);
  for (;;) {
    size_t best = std::string::npos;
    int which = -1;
    for (int h = 0; h < 4; ++h)
      if (next[h] < best) best = next[h], which = h;
    if (which < 0) break;
    next[which] = text.find(holes[which], best + holes[which].size());
    t.parts.push_back(text.substr(pos, best - pos) + (which == 0 ? "\"" : ""));
    t.holes.push_back(names[which]);
    pos = best + holes[which].size();
    if (which == 0) pos -= 1;  // the closing quote starts the next part
  }
  t.parts.push_back(text.substr(pos));
  return t;
}

struct Phase {
  int64_t ok = 0, failed = 0, rounds_done = 0;
  double wall_s = 0, writer_cpu_s = -1, checkpoint_cpu_s = -1, publisher_cpu_s = -1;
  std::vector<double> latencies_ms;
};

// A report id shaped as an agent makes it (NODE-GENERATED_MS-BOOT_HEX-SEQ), so
// the ids cost in the database what real ones do.
std::string ReportId(int node, int round, int64_t generated_ms) {
  char tail[64];
  std::snprintf(tail, sizeof tail, "-%lld-%08x-%06d", static_cast<long long>(generated_ms),
                static_cast<unsigned>(node) * 2654435761u, round + 1);
  return NodeName(node) + tail;
}

// Posts rounds [first, last) of every node: with speed 0, as fast as the
// collector takes them with --clients in flight; otherwise each at its own
// time on a clock that runs speed times real time (1: real time), by one of
// --paced-senders, its latency counted from then.
Phase RunRounds(int port, const std::vector<Template>& templates, const Args& a, int first, int last,
                std::atomic<int64_t>* sim_now, double speed) {
  const bool paced = speed > 0;
  const int64_t interval_ms = a.interval_s * 1000LL;
  const int64_t total = static_cast<int64_t>(last - first) * a.nodes;
  std::atomic<int64_t> next{0}, ok{0}, failed{0};
  const int senders = paced ? a.paced_senders : a.clients;
  std::vector<std::vector<double>> lat(senders);
  const auto deadline = Clock::now() + std::chrono::seconds(a.seconds);
  const auto t0 = Clock::now();
  const double writer0 = bench::ThreadCpuSeconds(kWriterThreadName), checkpoint0 = bench::ThreadCpuSeconds(kCheckpointThreadName);
  const double publisher0 = bench::ThreadCpuSeconds(kPublisherThreadName);
  std::vector<std::thread> clients;
  for (int c = 0; c < senders; ++c)
    clients.emplace_back([&, c] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      cli.set_read_timeout(60, 0);
      for (int64_t n; (n = next++) < total && Clock::now() < deadline;) {
        const int round = first + static_cast<int>(n / a.nodes), node = static_cast<int>(n % a.nodes);
        // Nodes' intervals end spread over the interval, as agents started at
        // different times do.
        const int64_t end = kT0 + round * interval_ms + node * interval_ms / a.nodes;
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
        auto res = cli.Post("/api/v1/reports",
                            {{"Authorization", std::string("Bearer ") + kToken}, {"Date", rdmascope::FormatHttpDate(end)}},
                            body, "application/json");
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
  const double writer1 = bench::ThreadCpuSeconds(kWriterThreadName), checkpoint1 = bench::ThreadCpuSeconds(kCheckpointThreadName);
  if (writer0 >= 0 && writer1 >= 0) p.writer_cpu_s = writer1 - writer0;
  if (checkpoint0 >= 0 && checkpoint1 >= 0) p.checkpoint_cpu_s = checkpoint1 - checkpoint0;
  const double publisher1 = bench::ThreadCpuSeconds(kPublisherThreadName);
  if (publisher0 >= 0 && publisher1 >= 0) p.publisher_cpu_s = publisher1 - publisher0;
  p.ok = ok.load();
  p.failed = failed.load();
  p.rounds_done = (p.ok + p.failed) / a.nodes;
  for (auto& v : lat) p.latencies_ms.insert(p.latencies_ms.end(), v.begin(), v.end());
  std::sort(p.latencies_ms.begin(), p.latencies_ms.end());
  return p;
}

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * static_cast<double>(sorted.size())))];
}

struct Read {
  double ms = 0;  // best of three
  int status = 0;
  size_t bytes = 0;
  std::string body;
};

Read Time(int port, const std::string& path) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(120, 0);
  Read r;
  r.ms = 1e18;
  for (int i = 0; i < 3; ++i) {
    const auto s = Clock::now();
    auto res = cli.Get(path, {{"Authorization", std::string("Bearer ") + kToken}});
    r.ms = std::min(r.ms, std::chrono::duration<double, std::milli>(Clock::now() - s).count());
    r.status = res ? res->status : 0;
    if (res) r.body = res->body;
  }
  r.bytes = r.body.size();
  return r;
}

// Reads the three answers and prints them; false when one failed or its
// row count is not what the fleet implies.
bool MeasureReads(int port, Store& store, const Args& a, const char* when) {
  auto history = store.CountRows("probe_summaries");
  const Read metrics = Time(port, "/metrics");
  const Read matrix = Time(port, "/api/v1/matrix");
  const Read pinglist = Time(port, "/api/v1/pinglist?node=node-0&rail=0");
  size_t series = 0;
  for (size_t at = 0; (at = metrics.body.find('\n', at)) != std::string::npos; ++at)
    if (at + 1 < metrics.body.size() && metrics.body[at + 1] != '#') ++series;
  json m = json::parse(matrix.body, nullptr, false);
  json p = json::parse(pinglist.body, nullptr, false);
  const size_t matrix_rows = m.is_object() ? m["rows"].size() : 0;
  const size_t targets = p.is_object() ? p["targets"].size() : 0;
  std::printf("reads %s (history: %lld probe summaries stored)\n", when,
              static_cast<long long>(history.ok() ? history.value() : -1));
  std::printf("  /metrics        %8.1f ms  (budget 500)  status %d, %zu series, %zu bytes, from %d nodes x %d pairs\n",
              metrics.ms, metrics.status, series, metrics.bytes, a.nodes, a.rails * a.targets * 2);
  std::printf("  /api/v1/matrix  %8.1f ms  (budget 300)  status %d, %zu rows, %zu bytes\n", matrix.ms, matrix.status,
              matrix_rows, matrix.bytes);
  std::printf("  pinglist        %8.2f ms  (budget 10)   status %d, %zu targets chosen from %d nodes\n", pinglist.ms,
              pinglist.status, targets, a.nodes);
  // Every (src, dst, transport) the fleet probes; rails fold into one cell.
  const size_t want_rows = static_cast<size_t>(a.nodes) * static_cast<size_t>(a.targets) * 2;
  bool good = metrics.status == 200 && matrix.status == 200 && pinglist.status == 200 && targets > 0;
  if (matrix_rows > want_rows || matrix_rows < want_rows / 2) {
    std::printf("  matrix rows %zu, expected about %zu\n", matrix_rows, want_rows);
    good = false;
  }
  return good;
}

bool PrintPhase(const char* name, const Phase& p, const Args& a, int rounds_wanted, double speed) {
  const bool paced = speed > 0;
  const double rate = p.wall_s > 0 ? static_cast<double>(p.ok) / p.wall_s : 0;
  const double need = static_cast<double>(a.nodes) / a.interval_s;
  std::printf("%s: %lld reports (%lld failed) = %lld of %d rounds, %.1f simulated min, in %.1f s wall\n", name,
              static_cast<long long>(p.ok), static_cast<long long>(p.failed), static_cast<long long>(p.rounds_done),
              rounds_wanted, p.rounds_done * a.interval_s / 60.0, p.wall_s);
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

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows as it happens, also into a file
  Args a;
  if (!ParseArgs(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: collector_fleet_load [--nodes N (2000)] [--rails R (8)] [--targets T (20)] [--interval-s S (10)]\n"
                 "                            [--minutes M of simulated history per history phase (10)]\n"
                 "                            [--history-speed X simulated time per real time in those phases (1.5;\n"
                 "                                             0: as fast as acknowledged, --clients in flight)]\n"
                 "                            [--capacity-minutes M of history sent as fast as acknowledged (2; 0: none)]\n"
                 "                            [--clients C reports in flight when sent as fast as acknowledged (32)]\n"
                 "                            [--seconds wall-time cap per phase (600)]\n"
                 "                            [--paced-seconds S of the phase at the fleet's own rate, in real time (60; 0: none)]\n"
                 "                            [--paced-senders P reports in flight at most when sent at due times (256)]\n"
                 "                            [--http-workers W the collector's HTTP workers (its default, %zu)]\n"
                 "                            [--rollup-slice-ms MS raw time per rollup step, divides a minute (its default, %lld)]\n",
                 kDefaultHttpWorkers, static_cast<long long>(RetentionPolicy{}.rollup_slice_ms));
    return 2;
  }
  char tmpl[] = "/tmp/collector_fleet_load.XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  const std::string dir = tmpl;
  std::printf("collector_fleet_load: %d nodes x %d rails x %d targets x 2 transports every %d s, %d clients (paced: %d senders), db in %s\n",
              a.nodes, a.rails, a.targets, a.interval_s, a.clients, a.paced_senders, dir.c_str());
  std::printf("collector: %d HTTP workers (%s), synchronous=%s, rollup slices of %d ms (%s)\n", a.http_workers,
              a.http_workers == static_cast<int>(kDefaultHttpWorkers) ? "its default" : "--http-workers",
              StoreOptions{}.synchronous_full ? "FULL" : "NORMAL", a.rollup_slice_ms,
              a.rollup_slice_ms == RetentionPolicy{}.rollup_slice_ms ? "its default" : "--rollup-slice-ms");
  std::printf("collector: connections per client address raised from %zu (its default) to %d, as every simulated "
              "node sends from this host's one address\n",
              ApiOptions{}.http_max_per_client, std::max(a.clients, a.paced_senders));

  StoreOptions so;
  so.path = dir + "/fleet.db";
  auto store = Store::Open(so);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  std::atomic<int64_t> sim_now{kT0};
  ApiOptions ao;
  ao.tokens = {kToken};
  ao.log = [](const std::string&) {};
  ao.http_workers = static_cast<size_t>(a.http_workers);
  // Room for every paced sender: the senders' own bound is the one measured.
  ao.http_max_queued = static_cast<size_t>(std::max(a.clients * 4, a.paced_senders));
  // Every simulated node sends from this host's one address: room for all senders.
  ao.http_max_per_client = static_cast<size_t>(std::max(a.clients, a.paced_senders));
  ao.max_body_bytes = 64u << 20;
  ao.pinglist.max_targets = a.targets;
  ao.now_ms = [&sim_now] { return sim_now.load(); };
  // Destroyed before the store: its group committer's threads use the store until then.
  std::optional<ApiServer> server;
  server.emplace(*store.value(), ao);
  std::thread serving;
  const int port = bench::ServeInBackground(*server, &serving);
  if (port < 0) return 1;

  std::vector<Template> templates;
  templates.reserve(a.nodes);
  for (int i = 0; i < a.nodes; ++i) templates.push_back(MakeTemplate(i, a));
  std::printf("report size %zu bytes, %d probe summaries\n",
              templates[0].Fill(std::string(kHoleI), kT0, kT0, kT0).size(), a.rails * a.targets * 2);

  // Rollups and retention as the collector runs them, on the fleet's clock.
  RetentionPolicy policy;
  policy.rollup_slice_ms = a.rollup_slice_ms;
  RetentionWorker retention(
      *store.value(), policy, 1000, [&sim_now] { return sim_now.load(); },
      [](const std::string& line) { std::printf("retention worker: %s\n", line.c_str()); });
  retention.Start();

  bool good = true;
  // Each phase starts again at the round the one before did not finish:
  // that round's reports sent so far are sent again (same ids, stored once).
  std::vector<Phase> done;
  const auto run = [&](const std::string& name, int rounds, double speed) {
    int first = 0;
    for (const Phase& p : done) first += static_cast<int>(p.rounds_done);
    done.push_back(RunRounds(port, templates, a, first, first + rounds, &sim_now, speed));
    good = PrintPhase(name.c_str(), done.back(), a, rounds, speed) && good;
  };
  char speed_text[64];
  if (a.history_speed > 0)
    std::snprintf(speed_text, sizeof speed_text, " (each report at its due time, %g x real time)", a.history_speed);
  else
    std::snprintf(speed_text, sizeof speed_text, " (as fast as acknowledged, %d in flight)", a.clients);
  const int rounds = a.minutes * 60 / a.interval_s;
  run(std::string("history 1") + speed_text, rounds, a.history_speed);
  good = MeasureReads(port, *store.value(), a, "after history 1") && good;
  run(std::string("history 2, doubles it") + speed_text, rounds, a.history_speed);
  good = MeasureReads(port, *store.value(), a, "after history 2") && good;
  if (a.capacity_minutes > 0)
    run("capacity (as fast as acknowledged, " + std::to_string(a.clients) + " in flight)",
        a.capacity_minutes * 60 / a.interval_s, 0);
  const int paced_rounds = a.paced_seconds / a.interval_s;
  if (paced_rounds > 0)
    run("paced (real time, " + std::to_string(paced_rounds * a.interval_s) + " s)", paced_rounds, 1);

  retention.Stop();
  // Roll what is left as the worker will once the grace has passed and the
  // last ten minutes have closed (the hour in progress reaches probe_hourly
  // ten minutes at a time), timing each step: its reads run without the
  // store lock, its write holds it.
  {
    const int64_t later = sim_now.load() + policy.rollup_grace_ms + policy.rollup_slice_ms + 10LL * 60 * 1000;
    int slices = 0;
    double total_ms = 0, longest_ms = 0;
    for (;;) {
      const auto s = Clock::now();
      auto n = store.value()->RollupStep(later, policy);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - s).count();
      if (!n.ok()) {
        std::printf("rollup failed: %s\n", n.status().message().c_str());
        good = false;
        break;
      }
      if (n.value() == 0) break;
      ++slices, total_ms += ms, longest_ms = std::max(longest_ms, ms);
    }
    std::printf("rollup of what is left, %d steps (slices of %lld ms, then the last minutes into hours; %d nodes): "
                "%.0f ms, longest step %.0f ms (read and write)\n",
                slices, static_cast<long long>(policy.rollup_slice_ms), a.nodes, total_ms, longest_ms);
  }
  // Node-intervals stored: each phase's whole rounds (the next one repeats
  // its partial round), and every report of the last.
  double node_intervals = static_cast<double>(done.back().ok);
  for (size_t i = 0; i + 1 < done.size(); ++i) node_intervals += static_cast<double>(done[i].rounds_done) * a.nodes;
  const double sim_s = node_intervals / a.nodes * a.interval_s;
  std::printf("database: %.1f MB after %.1f simulated min\n", static_cast<double>(store.value()->SizeBytes()) / 1048576.0,
              sim_s / 60.0);
  const bench::FleetStorage storage = bench::MeasureFleetStorage(so.path, a.nodes, sim_s, policy);
  bench::PrintFleetStorage(storage, policy, kBudgetBytesPerNodeDay);
  good = storage.ok && good;

  server->Stop();
  serving.join();
  server.reset();
  store.value().reset();
  { std::error_code ec; std::filesystem::remove_all(dir, ec); }
  std::printf("%s\n", good ? "PASS: 0 errors, every read answered with the rows the fleet implies" : "FAIL");
  return good ? 0 : 1;
}
