// Diagnosis internals: classifying paths and writing evidence (pure helpers
// of diagnosis_vote.cpp; see diagnosis.h for the rules).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"

namespace rdmascope::collector::diagnosis {

enum class PathKind { kGood, kLatency, kLoss, kUnreachable, kRnr, kAccess };

const char* KindName(PathKind k);

// RTT limits of one transport: latency_factor x the fleet's median of that
// statistic, at least latency_floor_us over the median (0: no path had it).
struct LatencyLimit {
  double p50_us = 0, min_us = 0;
};
std::map<std::string, LatencyLimit> LatencyLimits(const std::vector<PathSummary>& paths, const Options& o);

PathKind Classify(const PathSummary& p, const std::map<std::string, LatencyLimit>& limits, const Options& o);

// What the voting knows of the fleet.
struct Fleet {
  const Input* input = nullptr;
  std::vector<PathKind> kind;            // per path
  std::map<std::string, std::string> group;  // node -> group
  std::map<std::string, const NodeFacts*> node;
  std::map<std::string, LatencyLimit> latency_limit;
  std::string GroupOf(const std::string& node) const {
    auto it = group.find(node);
    return it == group.end() ? "" : it->second;
  }
};

// Evidence of a set of bad paths: count, statuses, median loss and p50, and
// the paths themselves (at most max_paths_cited) into v->paths.
void AddPathEvidence(const Fleet& f, const std::vector<size_t>& bad, nlohmann::json evidence, const Options& o,
                     Verdict* v);

// Counters that moved on node (device "" = every device) and on the switch
// ports at the other end of its cables.
void AddCounterEvidence(const Fleet& f, const std::string& node, const std::string& device, Verdict* v);

// Dominant kind of the paths (most paths; ties to the more severe kind).
PathKind DominantKind(const Fleet& f, const std::vector<size_t>& paths);

// Fills kind, severity and first_bad_ms from the explained paths.
void Finish(const Fleet& f, const std::vector<size_t>& bad, const Options& o, Verdict* v);

}  // namespace rdmascope::collector::diagnosis
