#include "bench/sim_run.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "bench/sim_ingest.h"
#include "bench/sim_reports.h"
#include "bench/sim_roce.h"
#include "bench/thread_cpu.h"
#include "collector/core/heap_release.h"
#include "collector/diagnosis/diagnosis_worker.h"
#include "collector/readmodel/roce_topology.h"

namespace rdmascope::bench {

using nlohmann::json;

namespace {

constexpr int64_t kStartMs = 1767225600000;  // 2026-01-01 00:00 UTC: the simulated clock's origin

double ThreadCpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// This thread's minor page faults and system CPU seconds so far: a pass's
// first touch of memory is kernel time inside its CPU figure.
struct ThreadFaults {
  long minor = 0;
  double sys_s = 0;
};
ThreadFaults ThreadFaultsNow() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return {u.ru_minflt, static_cast<double>(u.ru_stime.tv_sec) + static_cast<double>(u.ru_stime.tv_usec) * 1e-6};
}

double CollectorThreadsCpu() {
  double s = 0;
  for (const char* name : {collector::kWriterThreadName, collector::kPublisherThreadName}) {
    const double t = collector::bench::ThreadCpuSeconds(name);
    if (t > 0) s += t;
  }
  return s;
}

Result<std::vector<SeenVerdict>> ReadDiagnoses(collector::Storage& store) {
  auto rows = store.diagnoses.Diagnoses(true, 1000000);
  if (!rows.ok()) return Result<std::vector<SeenVerdict>>::Error("reading the diagnoses: " + rows.status().message());
  std::vector<SeenVerdict> out;
  for (const json& d : rows.value()["diagnoses"]) {
    SeenVerdict v;
    v.scope = d.value("scope", "");
    v.subject = d.value("subject", "");
    v.kind = d.value("kind", "");
    v.confidence = d.contains("confidence") && d["confidence"].is_number() ? d["confidence"].get<double>() : 0;
    v.opened_ms = d.contains("opened_at_ms") && d["opened_at_ms"].is_number() ? d["opened_at_ms"].get<int64_t>() : 0;
    v.closed_ms = d.contains("closed_at_ms") && d["closed_at_ms"].is_number() ? d["closed_at_ms"].get<int64_t>() : 0;
    json evidence = d.contains("evidence") ? d["evidence"] : json();
    if (evidence.is_null() && d.contains("evidence_json") && d["evidence_json"].is_string())
      evidence = json::parse(d["evidence_json"].get<std::string>(), nullptr, false);
    if (evidence.is_array())
      for (const json& e : evidence)
        if (e.is_object() && e.value("what", "") == "candidates")
          for (const char* k : {"links", "switches"})
            if (e.contains(k) && e[k].is_array())
              for (const json& c : e[k])
                if (c.is_string()) v.candidates.push_back(c.get<std::string>());
    out.push_back(std::move(v));
  }
  std::sort(out.begin(), out.end(), [](const SeenVerdict& a, const SeenVerdict& b) {
    return a.opened_ms != b.opened_ms ? a.opened_ms < b.opened_ms : a.Key() < b.Key();
  });
  return out;
}

int IntervalsAfter(int64_t from_ms, int64_t at_ms, int64_t interval_ms) {
  return static_cast<int>(std::ceil(static_cast<double>(at_ms - from_ms) / static_cast<double>(interval_ms)));
}

void Score(RunResult& r, const std::vector<SeenVerdict>& seen, int64_t clean_from, int64_t fault_start,
           int64_t fault_end, int64_t interval_ms) {
  std::set<std::string> expected;
  for (const FaultScore& f : r.faults) expected.insert(f.fault.expected.Key());
  std::vector<SeenVerdict> during;
  for (const SeenVerdict& v : seen) {
    if (v.opened_ms < fault_start && (v.closed_ms == 0 || v.closed_ms > clean_from)) r.clean_verdicts.push_back(v);
    if (v.opened_ms >= fault_start) during.push_back(v);
  }
  r.clean_false_verdicts = static_cast<int>(r.clean_verdicts.size());
  if (r.faults.empty()) return;
  std::set<std::string> keys, matched;
  for (const SeenVerdict& v : during) {
    keys.insert(v.Key());
    if (expected.count(v.Key())) matched.insert(v.Key());
  }
  const int per_fault =
      static_cast<int>((keys.size() + r.faults.size() - 1) / r.faults.size());  // shared when faults come together
  int correct = 0;
  for (FaultScore& f : r.faults) {
    f.verdicts = during;
    for (const SeenVerdict& v : during) {
      if (v.Key() != f.fault.expected.Key()) continue;
      const std::string& want = f.fault.expected.candidate;
      if (!want.empty() && std::find(v.candidates.begin(), v.candidates.end(), want) == v.candidates.end()) {
        f.miss = v.Key() + " does not list " + want + " among its candidates";
        continue;
      }
      f.named = true;
      f.intervals_to_verdict = IntervalsAfter(fault_start, v.opened_ms, interval_ms);
      f.intervals_to_close = v.closed_ms ? std::max(0, IntervalsAfter(fault_end, v.closed_ms, interval_ms)) : -1;
      break;
    }
    f.correct = f.named && f.intervals_to_verdict <= 2;
    if (!f.named && !f.miss.empty()) {
    } else if (!f.named) {
      std::string got;
      for (const std::string& k : keys) got += (got.empty() ? "" : ", ") + k;
      f.miss = "no verdict " + f.fault.expected.Key() + (got.empty() ? "; no verdict at all" : "; got " + got);
    } else if (!f.correct) {
      f.miss = "named after " + std::to_string(f.intervals_to_verdict) + " intervals (target: 2)";
    }
    correct += f.correct;
    r.max_verdicts_per_fault = std::max(r.max_verdicts_per_fault, per_fault);
  }
  r.precision = keys.empty() ? 0 : static_cast<double>(matched.size()) / static_cast<double>(keys.size());
  r.recall = static_cast<double>(correct) / static_cast<double>(r.faults.size());
  r.verdicts_per_fault = static_cast<double>(keys.size()) / static_cast<double>(r.faults.size());
}

// The topology file the simulator writes for RoCE mode, through a temporary
// file and the collector's own loader (what --topology reads).
Result<collector::RoceTopology> RoceTopologyOf(const RoceFabric& roce) {
  char path[] = "/tmp/fleet_fault_sim_topology_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return Result<collector::RoceTopology>::Error(std::string("RoCE topology: mkstemp: ") + std::strerror(errno));
  const std::string text = roce.TopologyJson().dump(1);
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  auto t = written ? collector::LoadRoceTopologyFile(path)
                   : Result<collector::RoceTopology>::Error(std::string("RoCE topology: writing ") + path + " failed");
  unlink(path);
  return t;
}

}  // namespace

Result<RunResult> RunSimulation(const SimTopology& topo, const RunOptions& o) {
  RunResult r;
  r.hosts = topo.hosts.size();
  r.rails = topo.rails;
  r.clean_minutes = o.clean_minutes;
  const int64_t interval_ms = static_cast<int64_t>(o.interval_s) * 1000;
  const int clean_intervals = static_cast<int>(std::ceil(o.clean_minutes * 60 / o.interval_s));
  const int64_t clean_from = kStartMs + o.warmup_intervals * interval_ms;
  const int64_t fault_start = clean_from + clean_intervals * interval_ms;
  const int64_t fault_end = fault_start + (o.faults.empty() ? 0 : o.fault_intervals) * interval_ms;
  std::vector<ActiveFault> active;
  const RoceFabric roce(topo);
  collector::DiagnosisWorkerOptions diagnosis_options;
  if (o.roce) {
    auto loaded = RoceTopologyOf(roce);
    if (!loaded.ok()) return Result<RunResult>::Error(loaded.status().message());
    diagnosis_options.topology = std::move(loaded.value());
  }
  for (const std::string& text : o.faults) {
    auto f = ParseFault(text, topo);
    if (!f.ok()) return Result<RunResult>::Error(f.status().message());
    if (o.roce) roce.Expect(&f.value());
    active.push_back(ActiveFault{f.value(), fault_start, fault_end});
    FaultScore s;
    s.fault = f.value();
    r.faults.push_back(std::move(s));
  }
  SimWorld world(topo, o.world);
  world.SetFaults(active);
  std::atomic<int64_t> now{kStartMs};
  SimClock clock = [&now] { return now.load(); };
  const int threads = std::max(1, o.threads);
  auto made = o.http ? MakeHttpIngest(clock, threads, o.query_deadline_ms) : MakeInProcessIngest(clock, o.query_deadline_ms);
  if (!made.ok()) return Result<RunResult>::Error(made.status().message());
  std::unique_ptr<SimIngest> ingest = std::move(made.value());
  std::vector<std::string> log_lines;
  collector::DiagnosisWorker worker(ingest->store(), diagnosis_options, clock,
                                    [&](const std::string& line) {
                                      if (o.verbose) std::fprintf(stderr, "diagnosis: %s\n", line.c_str());
                                    });
  // targets[host][nic]: the pinglist of the host's rail, as host indices.
  std::vector<std::vector<RailTargets>> targets(topo.hosts.size());
  for (size_t h = 0; h < topo.hosts.size(); ++h) targets[h].resize(topo.hosts[h].nics.size());
  const int total = o.warmup_intervals + clean_intervals + (o.faults.empty() ? 0 : o.fault_intervals + o.close_intervals);
  double cpu_sum = 0;
  for (int k = 0; k < total; ++k) {
    const int64_t t0 = kStartMs + k * interval_ms, t1 = t0 + interval_ms;
    now = t1;
    world.AdvanceCounters(t0, t1, static_cast<uint64_t>(k));
    std::vector<int> sweep_of(topo.hosts.size(), -1);
    if (o.sweep_every > 0 && k % o.sweep_every == 0)
      for (int p = 0; p < static_cast<int>(topo.planes.size()); ++p) {
        const int h = SweeperOf(world, p, t1);
        if (h >= 0 && sweep_of[h] < 0) sweep_of[h] = p;
      }
    const bool with_neighbours = o.neighbours_every > 0 && k % o.neighbours_every == 0;
    const bool refresh = k <= 1 || k % std::max(1, o.pinglist_every) == 0;
    if (refresh)
      if (Status s = ingest->BeginPinglists(); !s.ok()) return Result<RunResult>::Error(s.message());
    IntervalCost cost;
    std::atomic<size_t> next{0}, bytes{0}, reports{0}, probes{0};
    std::atomic<int64_t> build_us{0}, decode_us{0}, pinglist_us{0};
    std::mutex err_mu;
    std::string error;
    const double writer0 = CollectorThreadsCpu();
    const auto wall0 = std::chrono::steady_clock::now();
    auto work = [&](int slot) {
      for (;;) {
        const size_t h = next++;
        if (h >= topo.hosts.size()) return;
        if (world.HostDead(h, t1)) continue;
        const double c0 = ThreadCpuNow();
        if (refresh)
          for (size_t i = 0; i < topo.hosts[h].nics.size(); ++i) {
            auto names = ingest->Pinglist(topo.hosts[h].name, topo.hosts[h].nics[i].rail, slot);
            if (!names.ok()) {
              std::lock_guard<std::mutex> lock(err_mu);
              error = names.status().message();
              return;
            }
            targets[h][i].clear();
            for (const std::string& n : names.value()) {
              auto it = topo.host_index.find(n);
              if (it != topo.host_index.end()) targets[h][i].push_back(it->second);
            }
          }
        const double cp = ThreadCpuNow();
        pinglist_us += static_cast<int64_t>((cp - c0) * 1e6);
        std::string body = BuildHostReport(world, h, t0, t1, static_cast<uint64_t>(k), targets[h], sweep_of[h], o.interval_s,
                                           with_neighbours, o.group_labels);
        size_t n = 0;
        for (const auto& t : targets[h]) n += 2 * t.size();
        const double c1 = ThreadCpuNow();
        Status s = ingest->Post(body, slot);
        const double c2 = ThreadCpuNow();
        build_us += static_cast<int64_t>((c1 - cp) * 1e6);
        decode_us += static_cast<int64_t>((c2 - c1) * 1e6);
        bytes += body.size();
        ++reports;
        probes += n;
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(err_mu);
          error = topo.hosts[h].name + ": " + s.message();
          return;
        }
      }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) pool.emplace_back(work, i);
    for (std::thread& t : pool) t.join();
    if (!error.empty()) return Result<RunResult>::Error("interval " + std::to_string(k) + ": " + error);
    cost.ingest_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    cost.writer_cpu_s = CollectorThreadsCpu() - writer0;
    cost.build_cpu_s = static_cast<double>(build_us.load()) * 1e-6;
    cost.decode_cpu_s = static_cast<double>(decode_us.load()) * 1e-6;
    cost.pinglist_cpu_s = static_cast<double>(pinglist_us.load()) * 1e-6;
    cost.reports = reports;
    cost.probes = probes;
    cost.bytes = bytes;
    if (o.verbose)
      std::fprintf(stderr,
                   "interval %d: %zu reports, %zu probes, %.1f MB; round %.2f s wall (pinglists %.2f s CPU, agents %.2f s, "
                   "decode %.2f s, writer %.2f s)\n",
                   k, cost.reports, cost.probes, static_cast<double>(cost.bytes) / 1e6, cost.ingest_wall_s,
                   cost.pinglist_cpu_s, cost.build_cpu_s, cost.decode_cpu_s, cost.writer_cpu_s);
    // The diagnosis, every half interval as the collector's timer runs it.
    for (int64_t at : {t1, t1 + interval_ms / 2}) {
      now = at;
      const double c0 = ThreadCpuNow();
      const ThreadFaults f0 = ThreadFaultsNow();
      const auto w0 = std::chrono::steady_clock::now();
      auto pass = worker.RunPass();
      const double release0 = ThreadCpuNow();
      collector::ReleaseFreedHeap();  // as the collector's timer does after each pass (DiagnosisWorker::Tick)
      const double c = ThreadCpuNow() - c0, release = ThreadCpuNow() - release0;
      const ThreadFaults f1 = ThreadFaultsNow();
      cost.diagnosis_cpu_s += c;
      cost.diagnosis_wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      if (pass.ok() && o.verbose)
        std::fprintf(stderr, "interval %d: pass %.0f ms CPU (%.0f ms of it system, %.0f ms giving freed memory back; %ld minor page faults); paths routed %lld, unrouted %lld, pairs traced %lld; "
                     "inter-switch cables %lld, crossed %lld, covered (>=%d) %lld, coverage targets %lld for %lld "
                     "cables; verdicts %d %s\n", k, c * 1000, (f1.sys_s - f0.sys_s) * 1000, release * 1000, f1.minor - f0.minor,
                     static_cast<long long>(pass.value().routes.paths_routed),
                     static_cast<long long>(pass.value().routes.paths_unrouted),
                     static_cast<long long>(pass.value().routes.pairs_traced),
                     static_cast<long long>(pass.value().routes.switch_links),
                     static_cast<long long>(pass.value().routes.switch_links_crossed),
                     pass.value().links.min_paths,
                     static_cast<long long>(pass.value().links.switch_links_covered),
                     static_cast<long long>(pass.value().links.coverage_targets),
                     static_cast<long long>(pass.value().links.coverage_target_links),
                     pass.value().verdicts, pass.value().routes_error.c_str());
      if (pass.ok() && o.verbose)
        for (const std::string& key : pass.value().opened) std::fprintf(stderr, "interval %d: opened %s\n", k, key.c_str());
      if (!pass.ok()) {
        if (r.failed_passes++ == 0) r.first_pass_error = "interval " + std::to_string(k) + ": " + pass.status().message();
        if (o.verbose) std::fprintf(stderr, "interval %d: pass failed: %s\n", k, pass.status().message().c_str());
      }
      if (pass.ok() && o.verbose) {
        const collector::PassStepCpu& st = pass.value().cpu_ms;
        std::fprintf(stderr, "interval %d: pass steps, ms CPU: load %.0f, topology %.0f, resolve %.0f, plan %.0f, "
                     "coverage %.0f, vote %.0f, apply %.0f\n", k, st.load, st.topology, st.resolve, st.plan,
                     st.coverage, st.vote, st.apply);
      }
      cpu_sum += c;
      if (c * 1000 > r.diagnosis_cpu_ms_max && pass.ok()) r.most_costly_pass = pass.value().cpu_ms;
      r.diagnosis_cpu_ms_max = std::max(r.diagnosis_cpu_ms_max, c * 1000);
      ++r.passes;
    }
    r.costs.push_back(cost);
    if (o.verbose)
      std::fprintf(stderr, "interval %d: diagnosis %.0f ms CPU, %.0f ms wall for 2 passes\n", k,
                   cost.diagnosis_cpu_s * 1000, cost.diagnosis_wall_s * 1000);
    r.intervals = k + 1;
    if (!o.faults.empty() && t1 > fault_end) {
      auto open = ingest->store().diagnoses.OpenDiagnosisKeys();
      if (open.ok() && open.value().empty()) break;  // every verdict closed after the faults ended
    }
  }
  r.diagnosis_cpu_ms_per_pass = r.passes ? cpu_sum * 1000 / r.passes : 0;
  auto seen = ReadDiagnoses(ingest->store());
  if (!seen.ok()) return Result<RunResult>::Error(seen.status().message());
  Score(r, seen.value(), clean_from, o.faults.empty() ? INT64_MAX : fault_start, fault_end, interval_ms);
  return r;
}

}  // namespace rdmascope::bench
