// The fleet load tool's phases: rounds of every node's report posted to the
// collector, paced on a (simulated) clock or as fast as it acknowledges, and
// what each phase printed: rate against the fleet's need, acknowledgement
// latency, and the CPU of the collector's writer, checkpoint and snapshot
// publisher threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "bench/fleet_args.h"
#include "bench/fleet_reports.h"

namespace rdmascope::collector::bench {

struct Phase {
  int64_t ok = 0, failed = 0, rounds_done = 0;
  int64_t moved = 0;  // reports that went to another collector than their node's own (failover)
  // With FleetArgs::hold_s: reports no collector took at first, held and
  // sent again; the 503 answers seen, and how many said Retry-After.
  int64_t held = 0, answered_503 = 0, retry_after = 0;
  double wall_s = 0, writer_cpu_s = -1, checkpoint_cpu_s = -1, publisher_cpu_s = -1;  // -1: not measured
  std::vector<double> latencies_ms;  // sorted
};

// Posts rounds [first, last) of every node to its collector (node i's is
// ports[i % ports.size()]), moving on to the next when one gives no answer
// or a 5xx, as an agent with several --collector URLs does, and (with
// hold_s) holding a report none took and sending it again each second, as
// its spool does: with speed 0, as fast as the
// collector takes them with --clients in flight; otherwise each at its own
// time on a clock that runs speed times real time (1: real time), by one of
// --paced-senders, its latency counted from then. *sim_now follows the
// newest report sent (the collector's clock). Stops at --seconds of wall time.
Phase RunRounds(const std::vector<int>& ports, const std::vector<ReportTemplate>& templates, const FleetArgs& a, int first, int last,
                std::atomic<int64_t>* sim_now, double speed);

// Prints the phase's figures and verdicts; false when a report failed.
bool PrintPhase(const char* name, const Phase& p, const FleetArgs& a, int rounds_wanted, double speed);

}  // namespace rdmascope::collector::bench
