// Diagnosis: where a fault is (host, NIC, port, fabric link or switch, group,
// the whole fleet) and why, by voting over the newest probe summaries of the
// fleet, with the fabric's own routes where they are known.
//
// Contract (Diagnose is a pure, deterministic function of its input):
//  - A path is one (src, dst, rail, transport) summary. It is bad when it
//    failed completions or lost at least bad_loss_ratio of its probes, or when
//    it is slow: its network time (network_p50_us) over latency_factor x the
//    reference of its (rail, transport) and at least latency_floor_us over
//    it; or, for a path without network time, its total RTT p50 or min over
//    latency_factor x the reference and at least rtt_floor_us over it. The reference is the
//    pass's median, or the remembered baseline (Input::network_baseline_us)
//    when that is lower, so a fleet that got slower as a whole does not hide
//    a slow path. A path whose total RTT p50 is over its limit (rtt_floor_us)
//    while its network time is not is host_busy: the time went in a host,
//    not on the wire.
//    Summaries that measured nothing (not_run: a local port down) are no
//    evidence of loss; they only tie a down port to its rail.
//  - The kind of a bad path: access (REM_ACCESS/REM_INV_REQ/REM_OP: a
//    configuration fault at the responder) > rnr (RNR_RETRY_EXC: the
//    responder posts no receives) > unreachable (nothing came back) > loss >
//    latency > host_busy.
//  - Verdicts, in this order, each explaining the bad paths it covers so that
//    later rules see only what is left:
//     1. switch down: ports not ACTIVE on min_bad_paths nodes or more that
//        are min_share of the nodes cabled to one switch (PortFacts::
//        switch_guid): scope switch, kind unreachable, one verdict for them;
//        then port_down: a port not ACTIVE whose own paths (same node,
//        device and, when known, port) are bad or not run.
//     2. responder faults: a node that is the destination of bad rnr / access
//        paths from at least min_bad_paths sources, min_share of its inbound
//        paths: scope host, kind rnr / access.
//     3. fleet latency: the median network time (of its paths that lost
//        nothing) of a (rail, transport) at
//        fleet_latency_factor x its baseline or more (and fleet_latency_floor_us
//        over it): one verdict, scope fleet, subject "all" (every rail with a
//        baseline is slow) or "rail:R[,R...]", kind latency.
//    3b. the switch tier without routes (a RoCE fabric's ECMP; only with
//        Input::tier_leaves, from the topology file): a path between two
//        leaves (its ends' groups) crosses one uplink of each leaf and one
//        spine, picked by a hash the collector cannot see. So a lossy
//        uplink of leaf L spoils a share of about 1/k (k: L's uplinks) of
//        L's cross-leaf paths, to every other leaf, and nothing inside L; a
//        bad spine spoils about 1/k of the cross-leaf paths of every leaf.
//        Leaf L is named (scope switch, subject L, the evidence
//        "candidates": its uplinks, "one of L's k uplinks") when its
//        cross-leaf paths have bad ones beyond what the other cross-leaf
//        paths' bad share predicts (min_bad_paths and 3 standard deviations), at least twice that share but
//        under min_share of them (all of them cut is the group's verdict,
//        rule 4), its paths inside L at most half as bad, and the bad ones
//        spread over hosts at both ends (none holds min_share of them: a
//        host's fault is not the tier's). Then, when the remaining bad
//        cross-leaf paths are spread alike over min_share of the leaves,
//        under min_share of all cross-leaf paths, at least twice as bad as
//        the paths inside leaves, over no one host, and no leaf has
//        min_share of its own bad (that leaf is cut off): scope switch,
//        subject "spines" (the spine when there is one), candidates the
//        spines. Leaves that share no spine (the planes of a rail-optimised
//        fabric) are each a tier of their own, judged alone; with more than
//        one tier the subject is "spines:FIRST..LAST" of its spines. With a
//        topology, a group verdict on a leaf (rule 4) is named scope switch.
//        See diagnosis_tier.h.
//     4. elements, greedily: every remaining bad path blames the elements it
//        touches — its src and dst hosts and NICs, the groups of its ends, the
//        link between two groups (only paths without a route), the fabric
//        links and switches its route crosses there and back
//        (PathSummary::Crosses()), and the fleet. An element qualifies when it
//        has min_bad_paths bad paths and either min_share of its paths are
//        bad (a host or NIC: in BOTH directions, unless it is silent, and
//        standing out from the rest of its group by standout_share), or its
//        paths pooled lost at least pooled_min_loss of their probes and
//        pooled_factor x what all other paths lost (at least min_lost_probes;
//        a host or NIC in both directions) and its bad paths are at least
//        consistent_share of those such a loss spread evenly would spoil: a
//        link dropping 5 % spoils only some of its paths' ten probes, but
//        pooled it stands out, while loss on only some paths of an element
//        leaves the rest of its paths clean, and they exonerate it. Either
//        way, a fabric element's bad paths (and any element's pooled lost
//        probes) must also be more than chance gives at the rest's rate: the
//        binomial tail at that rate under chance_per_pass spread over the
//        elements and transport sets judged (tens of thousands of cables in a
//        fleet: background loss piles a few lost probes onto some of them by
//        chance every pass). A host's or
//        NIC's bad peers must lie in more than one group (more than one peer
//        in a fleet of one group). Paths that stay clean exonerate what they
//        cross.
//        Of the qualifying elements the one with the most bad paths beyond
//        what the bad share of all other paths predicts for it wins (within
//        a fifth of each other: the higher share of bad paths; then a silent
//        host > NIC > a live host > link > switch > group_link > group >
//        fleet — a live host's only NIC is the exact element, unless its
//        paths are host_busy or unreachable: a host busy or dead — and a link
//        whose counters rose before all, unless only its host adapter's end
//        counted them: the adapter's own count), its bad paths are explained, and
//        the vote repeats: a leaf that fails is one switch (or group) verdict, a
//        fleet-wide fault one fleet verdict, not a verdict per host. Shares
//        are taken over all paths and over each transport alone (RC hides
//        loss that UD shows); host_busy paths blame hosts and NICs only.
//     5. link_errors: a fabric link no verdict names whose error counters
//        rose past their thresholds in the newest sweep (link_downed: once):
//        warning; none for the cables of a switch that has a verdict, and
//        cables of one switch that rose together are one verdict on that
//        switch (a switch that restarts downs all its links). A verdict on a
//        link whose counters rose cites them.
//     6. unknown: bad paths no element explains, when they are more than
//        unknown_share of all measured paths (scattered single paths —
//        background loss — give no verdict).
//  - Evidence: the path vote (bad/total, per direction, peer groups, WC
//    statuses, median loss and p50), and the counters that moved on the
//    element: host port counters and hw_counters (delta of the newest
//    interval), the switch port at the other end of the cable, and a fabric
//    element's own counters. "paths" lists the bad paths behind the verdict.
//  - Severity: critical for unreachable, port_down, rnr, access and loss of
//    10 % or more; warning otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/core/verdict.h"
#include "collector/diagnosis/path_fields.h"

namespace rdmascope::collector::diagnosis {

// The names a pass's paths use (nodes, devices, rails, transports), each
// held once: a path holds their ids, so a million paths copy no string. Id 0
// is "" (unknown).
class Names {
 public:
  Names() : names_{std::string()} { ids_.emplace(std::string(), 0); }
  // The id of s, added when new.
  uint32_t Id(const std::string& s) {
    auto [it, added] = ids_.try_emplace(s, static_cast<uint32_t>(names_.size()));
    if (added) names_.push_back(s);
    return it->second;
  }
  // The id of s, or -1 when no path named it.
  int64_t Find(const std::string& s) const {
    auto it = ids_.find(s);
    return it == ids_.end() ? -1 : static_cast<int64_t>(it->second);
  }
  const std::string& operator[](uint32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
};

// The newest summary of one (src, dst, rail, transport). Names are ids in
// Input::names. Laid out by use, a cache line each (two in all: a pass
// fills a million): most sweeps read only the first line's fields,
// classifying a path the second.
struct alignas(64) PathSummary {
  // What every sweep over the paths reads.
  uint32_t src = 0, dst = 0, rail = 0, transport = 0;
  uint32_t src_device = 0, dst_device = 0;  // 0 ("") unknown
  int32_t src_group = -1, dst_group = -1;   // the ends' groups on this rail: Input::group_names (-1: NodeFacts::group)
  int64_t sent = 0, received = 0;
  // Input::elements its route crosses, there and back: Crosses(). The
  // router points `routed` at the list it keeps for the pair (shared by the
  // pair's transports and kept across passes; valid until its next
  // Refresh/Resolve); a caller without a router may fill `crosses` instead.
  const std::vector<uint32_t>* routed = nullptr;
  uint16_t src_port = 0, dst_port = 0;  // 0: unknown (a report names ports 1..255)
  bool not_run = false;                 // measured nothing (local port down)
  // What classifying a path reads besides.
  int64_t lost = 0;
  MaybeDouble rtt_p50_us, rtt_min_us;
  MaybeDouble network_p50_us;    // RTT less the responder's time, when measured
  ErrorCounts errors_by_status;  // short status name -> count
  // Seldom read.
  int64_t interval_start_ms = 0, interval_end_ms = 0;
  IdList crosses;
  const std::vector<uint32_t>& Crosses() const { return routed ? *routed : crosses.view(); }
};
static_assert(sizeof(PathSummary) == 128, "a path summary is two cache lines");

// One counter that rose during the newest interval.
struct CounterDelta {
  std::string name;
  int64_t delta = 0;
};

// A piece of the fabric paths cross: a cable between two ports, or a switch.
struct FabricElement {
  std::string scope;        // "link" | "switch"
  std::string subject;      // link "0xA/1<->0xB/3" (ends in text order); switch "0x<GUID>"
  std::string description;  // what an operator reads: switch NodeDescription; link ends described
  std::vector<CounterDelta> moved;  // error counters that rose on it (either end) in the newest sweep
  bool down = false;                // the newest sweep lost it (a link gone, a switch silent)
  // A cable whose counters rose only at its host adapter's end: the adapter's
  // own count, no more the cable's than the adapter's (its rise does not put
  // the cable before the NIC; a switch end that counts errors does).
  bool rose_at_host_only = false;
  std::string host_node = {}, host_device = {};  // a host cable: the node and device at its adapter end ("" else)
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

// A leaf of the switch tier whose forwarding is not visible (RoCE; from
// the topology file): its name, as a group of Input::group_names /
// NodeFacts::group, and its uplinks ("leaf<->spine").
struct TierLeaf {
  std::string name;
  std::vector<std::string> uplinks;
  std::vector<std::string> spines;  // the spine at the other end of each uplink
};

struct Input {
  Names names;  // what PathSummary's names index
  std::vector<PathSummary> paths;
  std::vector<NodeFacts> nodes;
  std::vector<PortFacts> ports;
  std::vector<FabricElement> elements;
  std::vector<std::string> group_names;  // PathSummary::src_group / dst_group index it
  std::vector<TierLeaf> tier_leaves;     // rule 3b (empty: no topology file)
  // "rail|transport" -> the fleet's usual median network time (µs), kept by
  // the caller across passes (UpdateNetworkBaseline).
  std::map<std::string, double> network_baseline_us;
};

struct Options {
  double bad_loss_ratio = 0.02;
  double latency_factor = 3.0;
  double latency_floor_us = 50;   // network time
  double rtt_floor_us = 1000;     // total RTT (paths without network time; host_busy)
  double fleet_latency_factor = 1.3;
  double fleet_latency_floor_us = 1;
  double min_share = 0.6;
  double standout_share = 0.3;
  double pooled_min_loss = 0.01;
  double pooled_factor = 5;
  int64_t min_lost_probes = 5;
  double consistent_share = 0.6;
  // The chance that one pass names, by chance alone, an element whose paths
  // lose at the rate of all the others (rule 4's significance).
  double chance_per_pass = 1e-3;
  int min_bad_paths = 3;
  double unknown_share = 0.25;
  double critical_loss_ratio = 0.10;
  size_t max_paths_cited = 50;
};

// Working memory of a pass (which elements each path touches), for a
// caller that runs pass after pass to hand back to the next: at 2,000 nodes
// x 8 rails about 75 MB that the kernel would zero anew each pass. What it
// holds is the vote's own, overwritten by the next pass.
struct VoteScratch;  // the vote's per-path and per-element arrays (diagnosis_elements.h)
// One pass at a time: not copyable (the vote's scratch is shared by pointer).
struct PassBuffers {
  PassBuffers() = default;
  PassBuffers(const PassBuffers&) = delete;
  PassBuffers& operator=(const PassBuffers&) = delete;
  PassBuffers(PassBuffers&&) = default;
  PassBuffers& operator=(PassBuffers&&) = default;
  std::vector<uint32_t> touches, src_host, dst_host;
  std::vector<size_t> offsets;
  std::vector<int32_t> src_group, dst_group;
  std::vector<const std::vector<uint32_t>*> routes;
  std::shared_ptr<VoteScratch> vote;  // made by the first pass
};

// Verdicts sorted critical first, then by scope and subject.
std::vector<Verdict> Diagnose(const Input& input, const Options& options = Options());
// The same, and the pass's median network time per "rail|transport" (of
// its measured paths; none where no path had one) into network_medians_us,
// for UpdateNetworkBaseline without taking the medians again.
std::vector<Verdict> Diagnose(const Input& input, const Options& options,
                              std::map<std::string, double>* network_medians_us);
// The same in the memory of `buffers` (kept by the caller; see PassBuffers).
std::vector<Verdict> Diagnose(const Input& input, const Options& options,
                              std::map<std::string, double>* network_medians_us, PassBuffers* buffers);

// The baseline after this pass: per (rail, transport) the median network
// time of input's measured paths folded into `before` (a fifth of the way),
// except where the median is at fleet_latency_factor of the baseline or more
// (a slow fleet does not become the norm); a new key starts at its median.
std::map<std::string, double> UpdateNetworkBaseline(const std::map<std::string, double>& before, const Input& input,
                                                    const Options& options = Options());
// The same from the medians Diagnose() gave.
std::map<std::string, double> UpdateNetworkBaseline(const std::map<std::string, double>& before,
                                                    const std::map<std::string, double>& network_medians_us,
                                                    const Options& options);

}  // namespace rdmascope::collector::diagnosis
