// collector_fleet_load_pg: the fleet load tool's synthetic fleet (the same
// reports, phases and reads as collector_fleet_load) through several
// collectors sharing one PostgreSQL, each a process of its own
// (bench/fleet_collectors.h) on a real PostgreSQL 15 started for the run
// (tests/support/postgres_server.h: its own cluster in a scratch directory,
// fsync off). Node i reports to collector i mod N and moves on to the next
// when its own gives no answer or a 5xx, as an agent with several
// --collector URLs does.
//
// Prints, per phase, what collector_fleet_load prints (the collectors'
// thread CPU is not measured: they are other processes); the reads from
// every collector; which collector leads; and the reports the database
// holds against those acknowledged (each report id once); then, the
// collectors stopped and what they would still roll rolled, the bytes per
// node per day at the default retention (fleet_storage_pg.h; as left, and
// with the rollups compacted to their live rows), and the raw
// history's day partitions before and after a retention pass run a day
// after the raw age (the day the load wrote is dropped whole). With
// --kill-at-s S, collector 0 is killed with SIGKILL S seconds into the
// paced phase: its nodes move to the others, and the lead moves when it
// held it (printed before and after, with the time it took).
//
// Bounded as collector_fleet_load is (its flags, same limits), plus
// --collectors N (1..8, default 2). Exit 1 when a report or a read failed,
// a read's rows are not what the fleet implies, the database does not
// hold each acknowledged report exactly once, or the rollup, the measure or
// the retention pass failed.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_args.h"
#include "bench/fleet_args.h"
#include "bench/fleet_collectors.h"
#include "bench/fleet_phases.h"
#include "bench/fleet_reads.h"
#include "bench/fleet_reports.h"
#include "bench/fleet_storage_pg.h"
#include "collector/store/pg_db.h"
#include "collector/store/pg_storage.h"
#include "tests/support/postgres_server.h"

namespace {

using namespace rdmascope::collector;
using namespace rdmascope::collector::bench;
using Clock = std::chrono::steady_clock;

struct PgArgs {
  int collectors = 2;
  int kill_at_s = 0;       // 0: no collector is killed
  int outage_at_s = 0;     // 0: PostgreSQL is not stopped
  int outage_s = 30;       // how long it stays stopped
};

// Takes this tool's own flags out of argv (the rest are collector_fleet_load's).
bool TakePgArgs(int* argc, char** argv, PgArgs* p) {
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    int* field = std::strcmp(argv[i], "--collectors") == 0 ? &p->collectors
                 : std::strcmp(argv[i], "--kill-at-s") == 0 ? &p->kill_at_s
                 : std::strcmp(argv[i], "--pg-outage-at-s") == 0 ? &p->outage_at_s
                 : std::strcmp(argv[i], "--pg-outage-s") == 0 ? &p->outage_s
                                                             : nullptr;
    if (!field) {
      argv[out++] = argv[i];
      continue;
    }
    if (i + 1 >= *argc || !ParseNumberFlag(argv[++i], field)) return false;
  }
  *argc = out;
  return p->collectors >= 1 && p->collectors <= 8 && p->kill_at_s >= 0 && p->kill_at_s <= 3600 &&
         p->outage_at_s >= 0 && p->outage_at_s <= 3600 && p->outage_s >= 1 && p->outage_s <= 600;
}

// The leader of each collector still running, as its /metrics says.
std::string Leaders(const std::vector<int>& ports, const std::vector<bool>& alive) {
  std::string out;
  for (size_t i = 0; i < ports.size(); ++i)
    if (alive[i]) out += (out.empty() ? "" : ", ") + std::string("collector ") + std::to_string(i) + " " + LeaderOf(ports[i]);
  return out;
}

int64_t Count(PgDb& db, const char* sql) {
  auto n = db.QueryInt(sql);
  return n.ok() ? n.value() : -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  PgArgs pa;
  FleetArgs a;
  if (!TakePgArgs(&argc, argv, &pa) || !ParseFleetArgs(argc, argv, &a)) {
    std::fprintf(stderr, "usage: collector_fleet_load_pg [--collectors N (2)] [--kill-at-s S into the paced phase (none)]\n"
                         "                               [--pg-outage-at-s S into the paced phase (none): PostgreSQL\n"
                         "                                stopped for --pg-outage-s D (30) s; reports no collector\n"
                         "                                takes are held and sent again, as agents spool them]\n"
                         "                               [collector_fleet_load's flags:]\n");
    PrintFleetUsage();
    return 2;
  }
  std::string why;
  auto pg = rdmascope::testsupport::PostgresServer::Start(&why);
  if (!pg) {
    std::fprintf(stderr, "PostgreSQL did not start: %s\n", why.c_str());
    return 1;
  }
  // Before this process starts any thread: the collectors are forked.
  ForkedCollectors collectors;
  auto started = collectors.Start(pa.collectors, pg->Url(), pg->password_file(), a);
  if (!started.ok()) {
    std::fprintf(stderr, "%s\n", started.status().message().c_str());
    return 1;
  }
  const std::vector<int> ports = started.value();
  std::vector<bool> alive(ports.size(), true);
  auto db = PgDb::Connect(pg->Url(), pg->password());
  if (!db.ok()) {
    std::fprintf(stderr, "the tool's own connection: %s\n", db.status().message().c_str());
    return 1;
  }
  std::printf("collector_fleet_load_pg: %d nodes x %d rails x %d targets x 2 transports every %d s through %d "
              "collectors on one PostgreSQL %d (its own cluster, fsync off; port %d)\n",
              a.nodes, a.rails, a.targets, a.interval_s, pa.collectors, pg->major_version(), pg->port());
  std::printf("collectors: %d HTTP workers each (%s), their diagnosis not run (as in collector_fleet_load), "
              "rollups and retention on the leader\n",
              a.http_workers, a.http_workers == static_cast<int>(kDefaultHttpWorkers) ? "their default" : "--http-workers");
  std::vector<ReportTemplate> templates;
  templates.reserve(a.nodes);
  for (int i = 0; i < a.nodes; ++i) templates.push_back(MakeReportTemplate(i, a));
  // Wait until one leads: its retention worker asks every second.
  for (auto until = Clock::now() + std::chrono::seconds(10);
       Leaders(ports, alive).find(" leads") == std::string::npos && Clock::now() < until;)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::printf("leader before the load: %s\n", Leaders(ports, alive).c_str());

  bool good = true;
  std::vector<Phase> done;
  int64_t acknowledged = 0;
  const auto run = [&](const std::string& name, int rounds, double speed) {
    int first = 0;
    for (const Phase& p : done) first += static_cast<int>(p.rounds_done);
    done.push_back(RunRounds(ports, templates, a, first, first + rounds, collectors.clock(), speed));
    acknowledged += done.back().ok;
    good = PrintPhase(name.c_str(), done.back(), a, rounds, speed) && good;
  };
  const auto reads = [&](const char* when) {
    const int64_t rows = Count(db.value(), "SELECT count(*) FROM probe_summaries");
    for (size_t i = 0; i < ports.size(); ++i) {
      if (!alive[i]) continue;
      std::printf("collector %zu: ", i);
      good = MeasureReads(ports[i], rows, a, when) && good;
    }
  };
  char speed_text[64];
  if (a.history_speed > 0)
    std::snprintf(speed_text, sizeof speed_text, " (each report at its due time, %g x real time)", a.history_speed);
  else
    std::snprintf(speed_text, sizeof speed_text, " (as fast as acknowledged, %d in flight)", a.clients);
  run(std::string("history") + speed_text, a.minutes * 60 / a.interval_s, a.history_speed);
  reads("after history");

  const int paced_rounds = a.paced_seconds / a.interval_s;
  std::thread killer;
  std::atomic<bool> paced_over{false};
  Clock::time_point killed_at{};
  bool took_lead = true;  // false: collector 0 was killed and no other took the lead
  if (pa.kill_at_s > 0 && paced_rounds > 0) {
    killer = std::thread([&] {
      const auto at = Clock::now() + std::chrono::seconds(pa.kill_at_s);
      while (Clock::now() < at && !paced_over) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (paced_over) return;
      collectors.Kill(0, SIGKILL);
      killed_at = Clock::now();
      alive[0] = false;
      std::printf("collector 0 (pid %d) killed with SIGKILL %d s into the paced phase\n",
                  static_cast<int>(collectors.pid(0)), pa.kill_at_s);
      // The lead moves within one retention tick (1 s) of the lock's release.
      std::string leaders;
      while ((leaders = Leaders(ports, alive)).find(" leads") == std::string::npos &&
             Clock::now() - killed_at < std::chrono::seconds(30))
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::printf("leader after collector 0 was killed: %s, %.0f ms after the kill, under load\n", leaders.c_str(),
                  std::chrono::duration<double, std::milli>(Clock::now() - killed_at).count());
      if (leaders.find(" leads") == std::string::npos) took_lead = false;
    });
  }
  std::thread outage;
  bool back_up = true;  // false: PostgreSQL did not start again
  if (pa.outage_at_s > 0 && paced_rounds > 0) {
    a.hold_s = pa.outage_s + 120;  // held through the outage and the catching up after it
    outage = std::thread([&] {
      const auto at = Clock::now() + std::chrono::seconds(pa.outage_at_s);
      while (Clock::now() < at && !paced_over) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (paced_over) return;
      const int64_t before = Count(db.value(), "SELECT count(*) FROM reports");
      if (std::string e = pg->Pause(); !e.empty()) {
        std::printf("stopping PostgreSQL failed: %s\n", e.c_str());
        back_up = false;
        return;
      }
      std::printf("PostgreSQL stopped %d s into the paced phase (%lld reports stored); it stays stopped %d s\n",
                  pa.outage_at_s, static_cast<long long>(before), pa.outage_s);
      std::this_thread::sleep_for(std::chrono::seconds(pa.outage_s));
      if (std::string e = pg->Resume(); !e.empty()) {
        std::printf("starting PostgreSQL again failed: %s\n", e.c_str());
        back_up = false;
        return;
      }
      db.value().Close();
      auto again = PgDb::Connect(pg->Url(), pg->password());
      if (again.ok()) db.value() = std::move(again).value();
      std::printf("PostgreSQL started again after %d s\n", pa.outage_s);
    });
  }
  if (paced_rounds > 0) run("paced (real time, " + std::to_string(paced_rounds * a.interval_s) + " s)", paced_rounds, 1);
  paced_over = true;
  if (killer.joinable()) killer.join();
  if (outage.joinable()) outage.join();
  good = back_up && good;
  good = took_lead && good;
  std::printf("leader after the load: %s\n", Leaders(ports, alive).c_str());
  reads("after the paced phase");

  // Each acknowledged report once: a report whose answer was lost with a
  // killed collector is sent again to another and must not be stored twice.
  const int64_t stored = Count(db.value(), "SELECT count(*) FROM reports");  // id is its primary key
  const bool cut_short = [&] {
    for (size_t i = 0; i + 1 < done.size(); ++i)
      if (done[i].ok + done[i].failed != static_cast<int64_t>(done[i].rounds_done) * a.nodes) return true;
    return false;
  }();
  std::printf("reports: %lld acknowledged, %lld in the database (one row per report id)%s\n",
              static_cast<long long>(acknowledged), static_cast<long long>(stored),
              cut_short ? " (a phase was cut short: its partial round was sent again, so acknowledged counts it twice)"
                        : "");
  if (stored < 0 || (!cut_short && stored != acknowledged)) {
    std::printf("  NOT each acknowledged report exactly once\n");
    good = false;
  }
  // Bytes per node per day: the collectors stopped, what they would still
  // roll rolled here (on the fleet's clock), then the server's accounting.
  const int64_t sim_now = collectors.clock()->load();
  collectors.Stop();
  double node_intervals = static_cast<double>(done.back().ok);
  for (size_t i = 0; i + 1 < done.size(); ++i) node_intervals += static_cast<double>(done[i].rounds_done) * a.nodes;
  const double sim_s = node_intervals / a.nodes * a.interval_s;
  RetentionPolicy policy;
  policy.rollup_slice_ms = a.rollup_slice_ms;  // as the collectors' (fleet_collectors.cpp)
  if (auto store = OpenPostgresStorage(pg->Url(), pg->password(), StoreOptions{}, sim_now); !store.ok()) {
    std::printf("opening the store to roll what is left: %s\n", store.status().message().c_str());
    good = false;
  } else {
    good = RollUpWhatIsLeft(*store.value(), policy, sim_now, a.nodes) && good;
    std::printf("storage as the load left it (rows rewritten by upserts still hold their old versions until "
                "vacuumed):\n");
    const FleetStorage storage = MeasureFleetStoragePg(db.value(), a.nodes, sim_s, policy);
    PrintFleetStorage(storage, policy, kFleetBudgetBytesPerNodeDay);
    good = storage.ok && good;
    // The rollups' rows are merged again by every slice of their minute:
    // the same with the live rows only.
    const rdmascope::Status vacuumed = db.value().Exec("VACUUM (FULL) probe_minute, probe_hourly, reports");
    if (!vacuumed.ok()) {
      std::printf("VACUUM FULL of the rollups failed: %s\n", vacuumed.message().c_str());
      good = false;
    } else {
      std::printf("storage with the rollups and report ids compacted (VACUUM FULL: their live rows only):\n");
      const FleetStorage live = MeasureFleetStoragePg(db.value(), a.nodes, sim_s, policy);
      PrintFleetStorage(live, policy, kFleetBudgetBytesPerNodeDay);
      good = live.ok && good;
    }
    // A retention pass as the leader runs it, a day after the raw age has
    // passed: the day the load wrote goes as a whole partition.
    // The rollup mark first moves through the quiet day as the leader's
    // steps would (raw rows past the mark are kept whatever their age).
    const int64_t later = sim_now + policy.raw_max_age_ms + 86400000;
    good = RollUpWhatIsLeft(*store.value(), policy, later, a.nodes) && good;
    good = PrintPartitions(db.value(), "probe_summaries", "before a retention pass a day after the raw age") && good;
    int64_t steps = 0, removed = 0;
    for (; steps < 100000; ++steps) {
      auto n = store.value()->retention.RetentionStep(later, policy);
      if (!n.ok()) {
        std::printf("retention step failed: %s\n", n.status().message().c_str());
        good = false;
        break;
      }
      if (n.value() == 0) break;
      removed += n.value();
    }
    if (steps == 100000) {
      std::printf("retention pass: still removing after %lld steps\n", static_cast<long long>(steps));
      good = false;
    }
    std::printf("retention pass: %lld steps, %lld removed over every table (a row deleted or a day partition "
                "dropped counts one)\n",
                static_cast<long long>(steps), static_cast<long long>(removed));
    good = PrintPartitions(db.value(), "probe_summaries", "after it") && good;
  }
  db.value().Close();
  if (std::string e = pg->Stop(); !e.empty()) std::fprintf(stderr, "stopping PostgreSQL: %s\n", e.c_str());
  std::printf("%s\n", good ? "PASS: 0 errors, every read answered with the rows the fleet implies, each report stored once"
                           : "FAIL");
  return good ? 0 : 1;
}
