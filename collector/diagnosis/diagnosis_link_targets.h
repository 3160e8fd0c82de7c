// Link coverage targets: after a pass has routed its paths (PathRouter), the
// inter-switch cables too few measured paths crossed, and the agent pairs
// whose routes cross them, handed to the pinglists (coverage_targets.h).
//
// Contract:
//  - Counting: a cable's crossings are the distinct measured pairs of agent
//    ports (run, sent probes: as Resolve counts "crossed"; the transports of
//    one (src, dst, rail) are one pair) whose route, there or back, crosses
//    it, as PathRouter::Resolve counted them. crossed: at least 1; covered:
//    at least min_paths.
//  - Agents: the (node, rail) ends the pass's paths name with a device, at
//    the address PathRouter has for that port. A target pairs two agents of
//    one rail, different nodes, neither direction already measured.
//  - Choice, for every cable between two switches that is up (a cable the
//    newest sweep lost is left out: probes into it only fail) and crossed by
//    fewer than min_paths pairs, cables in element order: first the last
//    pass's targets whose routes still cross a wanting cable (so a target is
//    kept while it is what covers its cable: the last pass's targets do not
//    count toward the need they were chosen for), then, per end X of the
//    cable (port px), a source cabled to X and a destination whose LID X
//    forwards out of px: that route crosses the cable. When X has no agent,
//    any agent of the destination's rail whose traced route crosses it. The
//    starting points in the name-ordered lists are a stable hash of the
//    cable: deterministic, and spread over the agents. Every route chosen
//    counts at once for every wanting cable it crosses (one pair often serves
//    several). A source gets at most max_per_source targets; at most
//    max_traces routes are walked per pass. A cable no pair can reach stays
//    wanting and is counted unreachable.
//  - Plan() returns the targets (at_ms, by source node) and fills coverage;
//    AddTo() writes the coverage into the "fabric" member of CoverageOf's
//    JSON: switch_links_covered, switch_links_unreachable, coverage_targets,
//    coverage_target_links, min_paths_per_link.
//  - Not thread-safe: the diagnosis worker owns one.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_routes.h"
#include "collector/readmodel/coverage_targets.h"

namespace rdmascope::collector {

struct LinkTargetOptions {
  int min_paths = 2;            // measured pairs wanted across every inter-switch cable
  int max_per_source = 8;       // targets one agent (node, rail) gets at most
  int64_t max_traces = 200000;  // routes walked per pass, at most
};

struct LinkCoverage {
  int64_t switch_links = 0;              // cables between two switches
  int64_t switch_links_crossed = 0;      // crossed by at least 1 measured pair
  int64_t switch_links_covered = 0;      // by at least min_paths
  int64_t switch_links_wanting = 0;      // up, and below min_paths
  int64_t switch_links_unreachable = 0;  // wanting, and no pair found for them
  int64_t coverage_targets = 0;          // targets handed out
  int64_t coverage_target_links = 0;     // distinct cables they are for
  int64_t traces = 0;                    // routes walked (cached or not)
  int min_paths = 2;
};

class LinkTargetPlanner {
 public:
  explicit LinkTargetPlanner(LinkTargetOptions options = {}) : options_(options) {}
  // After router.Resolve(&in).
  CoverageTargets Plan(PathRouter& router, const diagnosis::Input& in, int64_t at_ms, LinkCoverage* coverage);
  static void AddTo(const LinkCoverage& coverage, nlohmann::json* fabric);

 private:
  LinkTargetOptions options_;
  CoverageTargets previous_;
};

}  // namespace rdmascope::collector
