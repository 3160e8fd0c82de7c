#include "collector/diagnosis/diagnosis_worker.h"

#include "collector/core/heap_release.h"
#include "collector/diagnosis/diagnosis_coverage.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <mutex>
#include <set>

namespace rdmascope::collector {

DiagnosisWorker::DiagnosisWorker(Storage& store, DiagnosisWorkerOptions options, std::function<int64_t()> now_ms,
                                 std::function<void(const std::string&)> log)
    : store_(store),
      options_(std::move(options)),
      now_ms_(std::move(now_ms)),
      log_(std::move(log)),
      tracker_(options_.track),
      link_targets_(options_.links) {}

void DiagnosisWorker::Start() {
  thread_.Start(
      [this] {
        return options_.interval_ms > 0 ? options_.interval_ms
                                        : std::max<int64_t>(1000, options_.source.report_interval_ms / 2);
      },
      [this] { Tick(); });
}

namespace {

double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Adds the thread CPU time since the last Lap() (or construction) to *step.
class StepClock {
 public:
  void Lap(double* step) {
    const double now = ThreadCpuMs();
    *step += now - last_;
    last_ = now;
  }

 private:
  double last_ = ThreadCpuMs();
};

}  // namespace

Result<DiagnosisPass> DiagnosisWorker::RunPass() {
  DiagnosisPass pass;
  StepClock clock;
  const int64_t now = now_ms_();
  FabricCounterRises rises;
  if (Status s = LoadDiagnosisInput(store_, now, options_.source, &input_, &rises, &input_cache_); !s.ok())
    return Status::Error("diagnosis: reading the store: " + s.message());
  diagnosis::Input& input = input_;
  ApplyTopology(options_.topology, &input);
  clock.Lap(&pass.cpu_ms.load);
  if (Status s = router_.Refresh(store_); !s.ok()) pass.routes_error = "diagnosis: " + s.message();
  clock.Lap(&pass.cpu_ms.topology);
  router_.Resolve(&input, rises);
  pass.routes = router_.Coverage();
  clock.Lap(&pass.cpu_ms.resolve);
  CoverageTargets targets = link_targets_.Plan(router_, input, now, &pass.links);
  clock.Lap(&pass.cpu_ms.plan);
  nlohmann::json coverage = CoverageOf(input, pass.routes, now, options_.source.report_interval_ms);
  LinkTargetPlanner::AddTo(pass.links, &coverage["fabric"]);
  store_.read.snapshot().SetCoverageTargets(std::move(targets));
  store_.read.snapshot().SetCoverage(std::move(coverage));
  clock.Lap(&pass.cpu_ms.coverage);
  input.network_baseline_us = network_baseline_us_;
  std::map<std::string, double> medians;
  std::vector<diagnosis::Verdict> verdicts = diagnosis::Diagnose(input, options_.vote, &medians, &buffers_);
  network_baseline_us_ = diagnosis::UpdateNetworkBaseline(network_baseline_us_, medians, options_.vote);
  clock.Lap(&pass.cpu_ms.vote);
  auto open = store_.diagnoses.OpenDiagnosisKeys();
  if (!open.ok()) return Status::Error("diagnosis: reading open diagnoses: " + open.status().message());
  diagnosis::TrackStep step = tracker_.Observe(verdicts, open.value(), now, options_.source.report_interval_ms);
  const int64_t reopen_within_ms = options_.track.reopen_within * options_.source.report_interval_ms;
  if (Status s = store_.diagnoses.ApplyDiagnoses(step.upsert, step.close, now, reopen_within_ms); !s.ok())
    return Status::Error("diagnosis: storing diagnoses: " + s.message());
  clock.Lap(&pass.cpu_ms.apply);
  pass.verdicts = static_cast<int>(verdicts.size());
  pass.paths = static_cast<int>(input.paths.size());
  std::set<std::string> escalated_to;
  for (const auto& [from, to] : step.escalated) {
    pass.escalated.push_back(from + " -> " + to);
    escalated_to.insert(to);
  }
  for (const diagnosis::Verdict& v : step.upsert)
    if (!open.value().count(v.Key()) && !escalated_to.count(v.Key())) pass.opened.push_back(v.Key());
  pass.closed = step.close;
  return pass;
}

void DiagnosisWorker::Tick() {
  if (options_.lead && !options_.lead()) {
    // The leader's verdicts, as the store holds them, for this collector's
    // /metrics (the loader reads on the writer's connection: under its lock).
    Status read;
    {
      std::lock_guard<std::mutex> lock(store_.db.mu());
      read = store_.loader.LoadDiagnosesOpen();
    }
    if (!read.ok()) log_("diagnosis: reading the open diagnoses: " + read.message());
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  auto pass = RunPass();
  ReleaseFreedHeap();  // the pass read every path of its window
  const auto took_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  // A pass reads on a read-only connection (ingest goes on meanwhile) and
  // holds the store lock only to store its verdicts; one that takes a good
  // part of a second delays the verdicts: say so.
  if (took_ms >= kSlowPassMs)
    log_("diagnosis: a pass took " + std::to_string(took_ms) + " ms (reading the store and voting)");
  if (!pass.ok()) return log_(pass.status().message());
  if (!pass.value().routes_error.empty()) log_(pass.value().routes_error);
  for (const std::string& k : pass.value().opened) log_("diagnosis opened: " + k);
  for (const std::string& k : pass.value().escalated) log_("diagnosis escalated in place: " + k);
  for (const std::string& k : pass.value().closed) log_("diagnosis closed: " + k);
}

}  // namespace rdmascope::collector
