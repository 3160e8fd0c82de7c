// Pinglists: which peers an agent probes, per rail.
//
// Contract (pure function of the node list and the time, deterministic):
//  - Candidates are the known nodes other than the requester whose last
//    report is at most max_age_ms old and, when a rail is asked for, that
//    have a rail of that name (NodeHasRail).
//  - Groups are computed per rail (NodeGroup): labels[group_label], else the
//    node's leaf switch on that rail ("leaf:<GUID>"), else "". Without any
//    groups every node is in group "": a full mesh.
//  - A fleet of at most mesh_max_nodes candidates is probed as a full mesh:
//    every candidate is a target (a lab, a rack). Otherwise:
//  - Same group: every candidate in the requester's group (the full mesh
//    inside a group).
//  - Across groups, coverage by design (pinglist_coverage.h has the index
//    rules and their proofs): groups sorted by name, the members of each
//    sorted by a stable hash; every ordered pair of groups (A, B) gets
//    min(sources_per_pair, |A|) distinct sources in A, each with one
//    destination in B, in every rotation period. A requester gets about
//    ceil(sources_per_pair * (G-1) / |A|) cross-group targets, at most one per
//    other group. The period is now_ms / rotation_ms: each period moves both
//    the sources in A and the destinations in B on, so every member of B is
//    probed from A within ceil(|B| / k) periods and every member of A probes
//    every other group within ceil(|A| / k) periods (k the sources per pair).
//    The guarantee holds among pinglists built from the same node list in
//    the same period: agents that fetch on either side of a period boundary
//    or of a change in the candidates mix two assignments for one round.
//  - A requester that is not a candidate itself (silent too long, without
//    the rail, or not known yet) takes the cross targets of the member of its
//    group its name hashes to (extra coverage, taking nobody's place), or,
//    when its group has no candidates, one target in every other group.
//  - Link coverage (coverage_targets.h): For(requester, targets) adds the
//    requester's coverage targets on this rail, those the diagnosis chose
//    because their routes cross inter-switch cables too few measured paths
//    cross. Each is added once, when its dst is a candidate other than the
//    requester (a target already among the cross or own-group targets moves
//    up, it is not repeated). "coverage" names them: "link_targets" (how many
//    the list carries) and "links" (the distinct cables they are for), and
//    "dropped_link_targets" when the budget left some out.
//  - Budget: at most max_targets targets. The link coverage targets come
//    first, then the cross-group targets (they carry the coverage), then the
//    own group, sampled by a stable hash of (requester, candidate) when it
//    does not fit. What the budget dropped is named in "coverage"
//    (schemas/pinglist.schema.json).
//  - Each target carries host = labels.control_host (else the node name) and
//    control_port = labels.control_port (else default_control_port).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/readmodel/coverage_targets.h"
#include "collector/readmodel/node_info.h"

namespace rdmascope::collector {

struct PinglistOptions {
  std::string group_label = "group";
  int max_targets = 128;
  int sources_per_group_pair = 3;        // distinct sources per ordered group pair (at most the group's size)
  int64_t rotation_ms = 300LL * 1000;    // one period of the cross-group rotation
  int mesh_max_nodes = 8;                 // a fleet this small: every node probes every other
  int64_t max_age_ms = 3600LL * 1000;
  int default_control_port = 18610;  // the agents' default control port
};

// The candidates and groups of one rail at one time, for building the
// pinglists of many requesters; `nodes` must outlive it.
class PinglistPlan {
 public:
  // rail non-empty: only nodes that have a rail of that name (their "rails"
  // label, a comma-separated list; a node without it has the one rail "0"),
  // grouped by their leaf on that rail.
  PinglistPlan(const std::vector<NodeInfo>& nodes, int64_t now_ms, const PinglistOptions& options,
               const std::string& rail = "");

  // The JSON shape of schemas/pinglist.schema.json for `requester`; with
  // `targets`, its link coverage targets first (see the contract).
  nlohmann::json For(const std::string& requester, const CoverageTargets* targets = nullptr) const;

  // The rotation period now_ms falls in.
  uint64_t period() const { return period_; }

 private:
  struct Group {
    std::string name;
    std::vector<const NodeInfo*> members;  // by (PairHash(group, name), name)
  };
  struct Place {
    size_t group, member;
  };
  std::string GroupOfNode(const NodeInfo& n) const;
  nlohmann::json Target(const NodeInfo& n, const std::string& group, bool same) const;

  PinglistOptions options_;
  std::string rail_;
  int64_t now_ms_;
  uint64_t period_ = 0;
  std::vector<Group> groups_;                               // by name
  std::unordered_map<std::string_view, Place> candidates_;  // name -> where it is
  std::unordered_map<std::string_view, const NodeInfo*> known_;  // every node by name
};

// PinglistPlan(nodes, now_ms, options, rail).For(requester, targets).
nlohmann::json BuildPinglist(const std::string& requester, const std::vector<NodeInfo>& nodes, int64_t now_ms,
                             const PinglistOptions& options, const std::string& rail = "",
                             const CoverageTargets* targets = nullptr);

// True when node `n` has a rail named `rail` (see PinglistPlan).
bool NodeHasRail(const NodeInfo& n, const std::string& rail);

// The node's group: labels[group_label] when set, else "leaf:<GUID>" of its
// leaf switch when the fabric is known, else "".
std::string NodeGroup(const NodeInfo& n, const std::string& group_label);
// The same on rail `rail`: the leaf is the node's leaf on that rail
// (rail_leaves), else leaf_switch.
std::string NodeGroup(const NodeInfo& n, const std::string& group_label, const std::string& rail);

// FNV-1a 64 of "a|b": the stable order used for sampling.
uint64_t PairHash(const std::string& a, const std::string& b);

}  // namespace rdmascope::collector
