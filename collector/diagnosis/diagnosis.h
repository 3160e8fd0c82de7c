// Diagnosis: where a fault is (host, NIC, port, link between groups) and why,
// by voting over the newest probe summaries of the whole fleet.
//
// Contract (Diagnose is a pure, deterministic function of its input):
//  - A path is one (src, dst, rail, transport) summary. It is bad when it
//    failed completions or lost at least bad_loss_ratio of its probes, or when
//    its p50 RTT is over the fleet's latency limit (latency_factor x the
//    median p50 of its transport, and at least latency_floor_us over it), or
//    its min RTT is over the same limit taken on the median min. Delay added
//    on a path lifts every probe, the fastest too, while a busy host mostly
//    lifts the slow half: the min separates a delayed path from a loaded
//    fleet where the p50 alone is marginal.
//    Summaries that measured nothing (not_run: a local port down) are no
//    evidence of loss; they only tie a down port to its rail.
//  - The kind of a bad path: access (REM_ACCESS/REM_INV_REQ/REM_OP: a
//    configuration fault at the responder) > rnr (RNR_RETRY_EXC: the
//    responder posts no receives) > unreachable (nothing came back) > loss >
//    latency.
//  - Verdicts, in this order, each explaining the bad paths it covers so that
//    later rules see only what is left:
//     1. port_down: a port not ACTIVE on a node whose paths are bad or not run
//        on that device.
//     2. responder faults: a node that is the destination of bad rnr / access
//        paths from at least min_bad_paths sources, min_share of its inbound
//        paths: scope host, kind rnr / access.
//     3. voting: every remaining bad path blames its elements — src host,
//        src NIC, dst host, dst NIC and (across groups) the group link. A host
//        (or NIC) is the verdict when it is bad in min_share of its paths
//        BOTH as source and as destination and its bad peers lie in more than
//        one group (a fleet of one group: more than one peer); a node that
//        stopped reporting (silent, diagnosis_input.h) needs only the
//        destination side. A group link is
//        the verdict when min_share of the paths across it are bad. The best
//        share wins (host before NIC before group link on a tie), its bad
//        paths are explained, and the vote repeats until no element
//        qualifies, so two faults give two verdicts.
//     4. unknown: bad paths no element explains, when they are more than
//        unknown_share of all measured paths (scattered single paths —
//        background loss — give no verdict).
//  - An element needs min_bad_paths bad paths to be a verdict.
//  - Evidence: the path vote (bad/total, per direction, peer groups, WC
//    statuses, median loss and p50), and the counters that moved on the
//    element: host port counters and hw_counters (delta of the newest
//    interval) and, where the fabric is known, the switch port at the other
//    end of the cable. "paths" lists the bad paths behind the verdict.
//  - Severity: critical for unreachable, port_down, rnr, access and loss of
//    10 % or more; warning otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/core/verdict.h"

namespace rdmascope::collector::diagnosis {

// The newest summary of one (src, dst, rail, transport).
struct PathSummary {
  std::string src, dst, rail, transport;
  std::string src_device, dst_device;  // "" unknown
  int64_t interval_start_ms = 0, interval_end_ms = 0;
  int64_t sent = 0, received = 0, lost = 0;
  std::optional<double> rtt_p50_us, rtt_p99_us;
  std::map<std::string, int64_t> errors_by_status;  // short status name -> count
  bool not_run = false;                             // measured nothing (local port down)
  std::optional<double> rtt_min_us;
};

// One counter that rose during the newest interval.
struct CounterDelta {
  std::string name;
  int64_t delta = 0;
};

// A node's port: state and the counters that moved; the switch port at the
// other end of its cable when the fabric is known.
struct PortFacts {
  std::string node, device;
  int64_t port = 0;
  std::string state;  // "ACTIVE", "DOWN", ... ("" unknown)
  bool active = true;
  std::vector<CounterDelta> moved;  // counters and hw_counters with a positive delta
  std::string switch_guid, switch_description;
  int64_t switch_port = 0;
  std::vector<CounterDelta> switch_moved;  // error counters of that switch port that rose
};

struct NodeFacts {
  std::string name;
  std::string group;  // labels[group label], else "leaf:<switch GUID>", else ""
  bool silent = false;  // no report within the staleness limit (agent down?)
  int64_t last_report_at_ms = 0;
};

struct Input {
  std::vector<PathSummary> paths;
  std::vector<NodeFacts> nodes;
  std::vector<PortFacts> ports;
};

struct Options {
  double bad_loss_ratio = 0.02;
  double latency_factor = 3.0;
  double latency_floor_us = 1000;
  double min_share = 0.6;
  int min_bad_paths = 3;
  double unknown_share = 0.25;
  double critical_loss_ratio = 0.10;
  size_t max_paths_cited = 50;
};

// Verdicts sorted critical first, then by scope and subject.
std::vector<Verdict> Diagnose(const Input& input, const Options& options = Options());

}  // namespace rdmascope::collector::diagnosis
