// The fleet fault simulator's run: the simulated timeline, the agents'
// rounds through the collector's ingest, the diagnosis passes, and what the
// diagnoses said about each injected fault.
//
// Contract:
//  - Timeline (interval I = interval_s): warm-up intervals (pinglists fill),
//    clean minutes (no fault), then every fault at once for fault_intervals,
//    then up to close_intervals with none (the verdicts should close); the
//    run ends early once nothing is open after the faults ended.
//  - Each interval: the world's counters move, every live host's report is
//    built and posted (threads workers), then the diagnosis runs as the
//    collector's worker would, every half interval: RunPass at the
//    interval's end and half an interval later, each on the simulated
//    clock, its thread CPU time measured. A pass that fails (e.g. its read
//    stopped at the store's deadline) is counted and the run goes on, as
//    the collector's worker goes on.
//  - Pinglists are fetched per host and rail in the first warm-up rounds and
//    then every pinglist_every intervals (the agent refreshes them).
//  - Scoring (ScoreRun): a diagnosis is one opened row of the store's
//    diagnoses (a fault back soon after its diagnosis closed reopens the
//    same row: a flapping element is one diagnosis, closed at its last close). Clean false verdicts: opened in the clean window. A fault's
//    verdicts: every diagnosis opened from the faults' start until the run's
//    end (shared by faults injected together); it is correct when the
//    expected scope|subject|kind opened within 2 intervals of the start
//    (and, in RoCE mode, lists the expected candidate link).
//  - RoCE mode (roce): no sweeps, no neighbours; the topology file the
//    simulator writes (a temporary file, removed at the end) is loaded as
//    the collector loads --topology and given to the diagnosis; the
//    expected verdicts are the topology's (RoceFabric::Expect).
//    intervals_to_verdict / _to_close count intervals from the start / the
//    end (-1: never). precision = opened diagnoses that some fault expected
//    / opened diagnoses; recall = correct faults / faults; verdicts per
//    fault = opened diagnoses / faults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/sim_faults.h"
#include "bench/sim_topology.h"
#include "bench/sim_world.h"
#include "collector/diagnosis/diagnosis_worker.h"

namespace rdmascope::bench {

struct RunOptions {
  int interval_s = 10;
  int warmup_intervals = 3;
  double clean_minutes = 0;
  int fault_intervals = 6;
  int close_intervals = 6;
  int sweep_every = 1;       // 0: no sweeps
  int neighbours_every = 1;  // 0: no neighbours (the agent sends them in every report)
  bool group_labels = false; // each host labelled group=leaf:0x<GUID> (its first rail's leaf)
  bool roce = false;         // ECMP, no sweeps or neighbours; the collector gets the topology file (sim_roce.h)
  int pinglist_every = 6;
  int threads = 4;
  bool http = false;
  int64_t query_deadline_ms = 0;  // the store's read deadline (0: its default, 5 s)
  bool verbose = false;
  WorldOptions world;
  std::vector<std::string> faults;
};

struct SeenVerdict {
  std::string scope, subject, kind;
  double confidence = 0;
  int64_t opened_ms = 0, closed_ms = 0;  // closed 0: still open
  std::vector<std::string> candidates;   // the links or switches of its "candidates" evidence
  std::string Key() const { return scope + "|" + subject + "|" + kind; }
};

struct FaultScore {
  Fault fault;
  std::vector<SeenVerdict> verdicts;
  bool named = false;    // the expected verdict opened at all
  bool correct = false;  // ... within 2 intervals
  int intervals_to_verdict = -1, intervals_to_close = -1;
  std::string miss;  // why not correct
};

struct IntervalCost {
  double build_cpu_s = 0;    // the synthetic agents (report text)
  double pinglist_cpu_s = 0; // the pinglists fetched this round (none in most rounds)
  double decode_cpu_s = 0;   // decode + snapshot rows (HTTP: the posting threads)
  double writer_cpu_s = 0;   // the group commit's writer and publisher threads
  double ingest_wall_s = 0;  // the whole round: built, posted, committed
  double diagnosis_cpu_s = 0, diagnosis_wall_s = 0;  // both passes of the interval
  size_t reports = 0, probes = 0, bytes = 0;
};

struct RunResult {
  std::vector<FaultScore> faults;
  int clean_false_verdicts = 0;
  std::vector<SeenVerdict> clean_verdicts;
  double precision = 0, recall = 0, verdicts_per_fault = 0;
  int max_verdicts_per_fault = 0;
  double diagnosis_cpu_ms_per_pass = 0, diagnosis_cpu_ms_max = 0;
  collector::PassStepCpu most_costly_pass;  // the steps of the pass that took diagnosis_cpu_ms_max
  int passes = 0;
  int failed_passes = 0;     // passes that returned an error (the collector logs and retries them)
  std::string first_pass_error;
  std::vector<IntervalCost> costs;  // one per interval
  size_t hosts = 0;
  int rails = 0;
  int intervals = 0;
  double clean_minutes = 0;
};

Result<RunResult> RunSimulation(const SimTopology& topo, const RunOptions& options);

}  // namespace rdmascope::bench
