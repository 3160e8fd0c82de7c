// Diagnosis internals: classifying paths and writing evidence (pure helpers
// of diagnosis_vote.cpp; see diagnosis.h for the rules).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"

namespace rdmascope::collector::diagnosis {

// Ranked: a path's worst finding wins; kGood is no finding.
enum class PathKind { kGood, kHostBusy, kLatency, kLoss, kUnreachable, kRnr, kAccess };

const char* KindName(PathKind k);

// The limits of one (rail, transport): over them a path is slow (0: no path
// had the statistic). See diagnosis.h for how each is taken.
struct LatencyLimit {
  double network_p50_us = 0, rtt_p50_us = 0, rtt_min_us = 0;
  double network_median_us = 0;  // the pass's median network time (0: none)
};
// "rail|transport" of a path: the key of limits and baselines.
std::string RailTransport(const Input& in, const PathSummary& p);
// The latency statistics of one (rail, transport)'s paths, in no order.
struct LatencySamples {
  std::vector<double> network, p50, min;
  void Add(const PathSummary& p);
  void Clear() { network.clear(), p50.clear(), min.clear(); }
};

// The (rail, transport) of every path numbered: id[i] indexes names (each
// "rail|transport"), in order of first appearance. samples: NumberAndLimit's
// working memory, cleared (never freed) by each call: a fleet's pass samples
// three statistics of a million paths.
struct RailTransports {
  std::vector<uint32_t> id;
  std::vector<std::string> names;
  std::vector<LatencySamples> samples;
};
RailTransports NumberRailTransports(const Input& in);
// The limits of each numbered (rail, transport).
std::vector<LatencyLimit> LatencyLimits(const Input& in, const RailTransports& rt, const Options& o);
// Both at once (one pass over the paths): numbers into *rt, returns the
// limits. What *rt held (the caller's last numbering, kept with its memory)
// only sizes the samples.
std::vector<LatencyLimit> NumberAndLimit(const Input& in, const Options& o, RailTransports* rt);
std::map<std::string, LatencyLimit> LatencyLimits(const Input& in, const Options& o);

// limit: the path's (rail, transport) limits, nullptr when none.
PathKind Classify(const PathSummary& p, const LatencyLimit* limit, const Options& o);

// True when the path measured something (sent probes or saw errors, and was run).
bool Measured(const PathSummary& p);

// What the voting knows of the fleet.
struct Fleet {
  const Input* input = nullptr;
  std::vector<PathKind> kind;            // per path
  std::map<std::string, std::string> group;  // node -> group
  std::map<std::string, const NodeFacts*> node;
  RailTransports rail_transport;           // per path
  std::vector<LatencyLimit> limit;         // per rail_transport id
  std::vector<uint8_t> transport_set;      // per path: TransportSetOf its transport (diagnosis_elements.h)
  const std::string& Name(uint32_t id) const { return input->names[id]; }
  const std::string& GroupOf(uint32_t node) const { return GroupOf(Name(node)); }
  const std::string& GroupOf(const std::string& node) const {
    static const std::string kNone;
    auto it = group.find(node);
    return it == group.end() ? kNone : it->second;
  }
  // The group of a path's source / destination on its rail.
  const std::string& SrcGroup(const PathSummary& p) const {
    return p.src_group < 0 ? GroupOf(p.src) : input->group_names[static_cast<size_t>(p.src_group)];
  }
  const std::string& DstGroup(const PathSummary& p) const {
    return p.dst_group < 0 ? GroupOf(p.dst) : input->group_names[static_cast<size_t>(p.dst_group)];
  }
};

// Evidence of a set of bad paths: count, statuses, median loss and p50, and
// the paths themselves (at most max_paths_cited) into v->paths.
void AddPathEvidence(const Fleet& f, const std::vector<size_t>& bad, nlohmann::json evidence, const Options& o,
                     Verdict* v);

// Counters that moved on node (device "" = every device) and on the switch
// ports at the other end of its cables.
void AddCounterEvidence(const Fleet& f, const std::string& node, const std::string& device, Verdict* v);

// A fabric element's own counters that rose, as evidence.
void AddElementCounterEvidence(const FabricElement& e, Verdict* v);

// Dominant kind of the paths (most paths; ties to the more severe kind).
PathKind DominantKind(const Fleet& f, const std::vector<size_t>& paths);

// Fills kind, severity and first_bad_ms from the explained paths.
void Finish(const Fleet& f, const std::vector<size_t>& bad, const Options& o, Verdict* v);

// The middle value of v (with an even count, the mean of the two middle
// ones); 0 when v is empty. Exact, whatever the size.
double Median(std::vector<double> v);
// The same in place: v is reordered, its memory kept.
double MedianInPlace(std::vector<double>& v);

}  // namespace rdmascope::collector::diagnosis
