// Background diagnosis: every interval, read the newest facts from the Store,
// run the vote, and open, refresh or close diagnoses with hysteresis.
//
// Contract: RunPass() is one whole run (what the timer does) and returns what
// it opened, escalated and closed, and the calling thread's CPU time of each
// of its steps (DiagnosisPass::cpu_ms); the loop runs it every interval_ms (0: every half
// report interval, at least 1 s). The report interval is the configuration's
// (source.report_interval_ms). The worker keeps the fleet's network-time
// baseline from pass to pass (diagnosis::UpdateNetworkBaseline) and the
// routes of probed pairs through the fabric (PathRouter), and the memory a
// pass fills (its input, the vote's buffers) for the next one; the topology file,
// when given, groups the input by leaf (ApplyTopology) before the vote; a pass whose
// topology cannot be read runs without routes and says so. After routing, it
// chooses the link coverage targets (LinkTargetPlanner) and publishes them
// to the read model (ReadSnapshot::SetCoverageTargets) with the coverage. Stop() wakes the worker and joins it; it
// returns within one pass. A failed pass is logged and retried at the next
// tick: the daemon never stops for it. With options.lead, a tick runs a pass
// only while lead() says this collector leads.
#pragma once

#include <map>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_input.h"
#include "collector/diagnosis/diagnosis_link_targets.h"
#include "collector/diagnosis/diagnosis_routes.h"
#include "collector/diagnosis/diagnosis_topology.h"
#include "collector/diagnosis/diagnosis_track.h"
#include "collector/core/periodic_thread.h"
#include "collector/store/storage.h"

namespace rdmascope::collector {

struct DiagnosisWorkerOptions {
  int64_t interval_ms = 0;  // 0: half the report interval, at least 1 s
  DiagnosisSourceOptions source;
  diagnosis::Options vote;
  diagnosis::TrackOptions track;
  RoceTopology topology;  // --topology: leaves, uplinks, spines (empty: none; see diagnosis_topology.h)
  LinkTargetOptions links;
  // Whether this collector runs the passes now (null: always, the only
  // collector). Collectors sharing PostgreSQL pass PgLeadership::Lead: a
  // tick of a collector that does not lead runs no pass and only reads the
  // open diagnoses from the store for /metrics.
  std::function<bool()> lead;
};

// The calling thread's CPU time of each step of a pass, ms: where a pass's
// time goes (the fleet simulator prints it).
struct PassStepCpu {
  double load = 0;      // the input: nodes, newest paths, counters (LoadDiagnosisInput)
  double topology = 0;  // the fabric topology, read and indexed again when its version changed
  double resolve = 0;   // each path's route (pairs traced when their switches changed)
  double plan = 0;      // link coverage targets
  double coverage = 0;  // coverage published to the read model
  double vote = 0;      // Diagnose and the network baseline
  double apply = 0;     // hysteresis and the store's transaction
};

struct DiagnosisPass {
  int verdicts = 0;  // verdicts of this run
  int paths = 0;     // path summaries voted over
  RouteCoverage routes;  // paths routed through the fabric, inter-switch cables they crossed
  LinkCoverage links;    // inter-switch cables covered, and the coverage targets handed out
  std::string routes_error;  // the topology could not be read: the pass ran without routes
  std::vector<std::string> opened, closed;  // keys
  std::vector<std::string> escalated;       // "open key -> its new key": the same diagnosis, more severe
  PassStepCpu cpu_ms;
};

class DiagnosisWorker {
 public:
  DiagnosisWorker(Storage& store, DiagnosisWorkerOptions options, std::function<int64_t()> now_ms,
                  std::function<void(const std::string&)> log);
  ~DiagnosisWorker() { Stop(); }
  void Start();
  void Stop() { thread_.Stop(); }
  Result<DiagnosisPass> RunPass();

 private:
  static constexpr long kSlowPassMs = 300;  // a pass this long is logged
  void Tick();

  Storage& store_;
  DiagnosisWorkerOptions options_;
  std::function<int64_t()> now_ms_;
  std::function<void(const std::string&)> log_;
  diagnosis::Tracker tracker_;
  PathRouter router_;
  LinkTargetPlanner link_targets_;
  std::map<std::string, double> network_baseline_us_;  // only the pass (one thread) touches it
  // The pass's input and the vote's working memory, kept from pass to pass:
  // hundreds of MB at fleet size that the kernel would zero anew each pass.
  diagnosis::Input input_;
  DiagnosisInputCache input_cache_;  // input_'s unchanged nodes' paths are kept, not refilled
  diagnosis::PassBuffers buffers_;
  PeriodicThread thread_;
};

}  // namespace rdmascope::collector
