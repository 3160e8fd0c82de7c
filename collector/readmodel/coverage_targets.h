// Coverage targets: extra probes the diagnosis hands to the pinglists so that
// every inter-switch cable of an InfiniBand subnet is crossed by enough
// measured paths (issue "coverage by design", the link half).
//
// Contract:
//  - Written by the diagnosis worker after each pass (the diagnosis pushes
//    into the read model, never the other way) and read by the pinglists
//    (PinglistPlan::For): a plain value, replaced whole, shared read-only.
//  - A target is (node, rail, dst): agent `node` probes agent `dst` on rail
//    `rail`, because the route of that pair (there or back, from the
//    subnet's forwarding tables) crosses the cables named in `links`
//    (element subjects "0xA/1<->0xB/3"), which fewer than the wanted number
//    of measured paths crossed.
//  - by_node holds each source's targets in the order they were chosen
//    (deterministic for one input); `links` counts the distinct cables the
//    targets are for.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rdmascope::collector {

struct CoverageTarget {
  std::string node, rail, dst;
  std::vector<std::string> links;  // the under-covered cables its route crosses
};

struct CoverageTargets {
  int64_t at_ms = 0;                                          // the pass that chose them
  std::map<std::string, std::vector<CoverageTarget>> by_node;  // source node -> its targets
  int64_t targets = 0;                                        // all of by_node's
  int64_t links = 0;                                          // distinct cables they are for

  // The targets of `node` on `rail`; an empty rail asks for rail "" or "0"
  // (a pinglist without a rail: the node's one rail).
  std::vector<const CoverageTarget*> Of(const std::string& node, const std::string& rail) const {
    std::vector<const CoverageTarget*> out;
    auto it = by_node.find(node);
    if (it == by_node.end()) return out;
    for (const CoverageTarget& t : it->second)
      if (t.rail == rail || (rail.empty() && (t.rail.empty() || t.rail == "0"))) out.push_back(&t);
    return out;
  }
};

}  // namespace rdmascope::collector
