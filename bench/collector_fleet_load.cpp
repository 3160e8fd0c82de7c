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
//
// This file runs the phases in order; the parts: fleet_args (flags),
// fleet_reports (report templates), fleet_phases (sending and its figures),
// fleet_reads (the timed reads), fleet_storage (bytes per node per day).
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "bench/bench_server.h"
#include "bench/fleet_args.h"
#include "bench/fleet_phases.h"
#include "bench/fleet_reads.h"
#include "bench/fleet_reports.h"
#include "bench/fleet_storage.h"
#include "collector/http/api_server.h"
#include "collector/service/retention_worker.h"
#include "collector/store/storage.h"

namespace {

using namespace rdmascope::collector;
using namespace rdmascope::collector::bench;
using Clock = std::chrono::steady_clock;

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows as it happens, also into a file
  FleetArgs a;
  if (!ParseFleetArgs(argc, argv, &a)) {
    PrintFleetUsage();
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
  // Every simulated node sends from this host's one address: room for all
  // senders twice over, as a sender's next connection may arrive before the
  // front has counted its last one closed.
  const int per_client = 2 * std::max(a.clients, a.paced_senders);
  std::printf("collector: connections per client address raised from %zu (its default) to %d, as every simulated "
              "node sends from this host's one address\n",
              ApiOptions{}.http_max_per_client, per_client);

  StoreOptions so;
  so.path = dir + "/fleet.db";
  auto store = Storage::Open(so);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  std::atomic<int64_t> sim_now{kFleetStartMs};
  ApiOptions ao;
  ao.tokens = {kFleetToken};
  ao.log = [](const std::string&) {};
  ao.http_workers = static_cast<size_t>(a.http_workers);
  // Room for every paced sender: the senders' own bound is the one measured.
  ao.http_max_queued = static_cast<size_t>(std::max(a.clients * 4, a.paced_senders));
  ao.http_max_per_client = static_cast<size_t>(per_client);
  ao.max_body_bytes = 64u << 20;
  ao.pinglist.max_targets = a.targets;
  ao.now_ms = [&sim_now] { return sim_now.load(); };
  // Destroyed before the store: its group committer's threads use the store until then.
  std::optional<ApiServer> server;
  server.emplace(*store.value(), ao);
  std::thread serving;
  const int port = ServeInBackground(*server, &serving);
  if (port < 0) return 1;

  std::vector<ReportTemplate> templates;
  templates.reserve(a.nodes);
  for (int i = 0; i < a.nodes; ++i) templates.push_back(MakeReportTemplate(i, a));
  std::printf("report size %zu bytes, %d probe summaries\n",
              templates[0].Fill(std::string(kTemplateReportId), kFleetStartMs, kFleetStartMs, kFleetStartMs).size(),
              a.rails * a.targets * 2);

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
    done.push_back(RunRounds({port}, templates, a, first, first + rounds, &sim_now, speed));
    good = PrintPhase(name.c_str(), done.back(), a, rounds, speed) && good;
  };
  char speed_text[64];
  if (a.history_speed > 0)
    std::snprintf(speed_text, sizeof speed_text, " (each report at its due time, %g x real time)", a.history_speed);
  else
    std::snprintf(speed_text, sizeof speed_text, " (as fast as acknowledged, %d in flight)", a.clients);
  const int rounds = a.minutes * 60 / a.interval_s;
  run(std::string("history 1") + speed_text, rounds, a.history_speed);
  auto history_rows = [&] {
    auto n = store.value()->db.CountRows("probe_summaries");
    return n.ok() ? n.value() : int64_t{-1};
  };
  good = MeasureReads(port, history_rows(), a, "after history 1") && good;
  run(std::string("history 2, doubles it") + speed_text, rounds, a.history_speed);
  good = MeasureReads(port, history_rows(), a, "after history 2") && good;
  if (a.capacity_minutes > 0)
    run("capacity (as fast as acknowledged, " + std::to_string(a.clients) + " in flight)",
        a.capacity_minutes * 60 / a.interval_s, 0);
  const int paced_rounds = a.paced_seconds / a.interval_s;
  if (paced_rounds > 0)
    run("paced (real time, " + std::to_string(paced_rounds * a.interval_s) + " s)", paced_rounds, 1);

  retention.Stop();
  good = RollUpWhatIsLeft(*store.value(), policy, sim_now.load(), a.nodes) && good;
  // Node-intervals stored: each phase's whole rounds (the next one repeats
  // its partial round), and every report of the last.
  double node_intervals = static_cast<double>(done.back().ok);
  for (size_t i = 0; i + 1 < done.size(); ++i) node_intervals += static_cast<double>(done[i].rounds_done) * a.nodes;
  const double sim_s = node_intervals / a.nodes * a.interval_s;
  std::printf("database: %.1f MB after %.1f simulated min\n", static_cast<double>(store.value()->db.SizeBytes()) / 1048576.0,
              sim_s / 60.0);
  const FleetStorage storage = MeasureFleetStorage(so.path, a.nodes, sim_s, policy);
  PrintFleetStorage(storage, policy, kFleetBudgetBytesPerNodeDay);
  good = storage.ok && good;

  server->Stop();
  serving.join();
  server.reset();
  store.value().reset();
  { std::error_code ec; std::filesystem::remove_all(dir, ec); }
  std::printf("%s\n", good ? "PASS: 0 errors, every read answered with the rows the fleet implies" : "FAIL");
  return good ? 0 : 1;
}
