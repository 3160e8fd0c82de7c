// Pinglists: which peers an agent probes.
//
// Contract (pure function of the node list, deterministic):
//  - Candidates are the known nodes other than the requester whose last
//    report is at most max_age_ms old.
//  - A node's group is its labels[group_label]; without that label, its leaf
//    switch when the fabric is known ("leaf:0x<switch GUID>": the switch at
//    the other end of its IB port, from its own neighbour report or a sweep);
//    else "". Without any groups every node is in group "": a full mesh.
//  - Targets: every candidate in the requester's group, plus up to
//    cross_group_targets candidates from other groups chosen by a stable hash
//    of (requester, candidate); at most max_targets in all. When the own group
//    alone exceeds the budget it is sampled by the same hash.
//  - Each target carries host = labels.control_host (else the node name) and
//    control_port = labels.control_port (else default_control_port).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/readmodel/node_info.h"

namespace rdmascope::collector {

struct PinglistOptions {
  std::string group_label = "group";
  int max_targets = 128;
  int cross_group_targets = 4;
  int64_t max_age_ms = 3600LL * 1000;
  int default_control_port = 18610;  // the agents' default control port
};

// The JSON shape of schemas/pinglist.schema.json. A requester that has not
// reported yet is in group "".
// rail non-empty: only nodes that have a rail of that name (their "rails"
// label, a comma-separated list; a node without it has the one rail "0").
nlohmann::json BuildPinglist(const std::string& requester, const std::vector<NodeInfo>& nodes, int64_t now_ms,
                             const PinglistOptions& options, const std::string& rail = "");

// True when node `n` has a rail named `rail` (see BuildPinglist).
bool NodeHasRail(const NodeInfo& n, const std::string& rail);

// The node's group: labels[group_label] when set, else "leaf:<GUID>" of its
// leaf switch when the fabric is known, else "".
std::string NodeGroup(const NodeInfo& n, const std::string& group_label);

// FNV-1a 64 of "a|b": the stable order used for sampling.
uint64_t PairHash(const std::string& a, const std::string& b);

}  // namespace rdmascope::collector
