// LinkTargetPlanner (contract in diagnosis_link_targets.h).
#include "collector/diagnosis/diagnosis_link_targets.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collector/readmodel/pinglist.h"

namespace rdmascope::collector {
namespace {

struct Agent {
  std::string node, rail;
  FabricAddress address;
};

}  // namespace

CoverageTargets LinkTargetPlanner::Plan(PathRouter& router, const diagnosis::Input& in, int64_t at_ms,
                                        LinkCoverage* coverage) {
  LinkCoverage c;
  c.min_paths = options_.min_paths;
  CoverageTargets out;
  out.at_ms = at_ms;
  const std::vector<PathRouter::SwitchCable> cables = router.SwitchCables();
  c.switch_links = static_cast<int64_t>(cables.size());
  std::vector<int64_t> cable_of(in.elements.size(), -1);  // element -> index in cables
  for (size_t i = 0; i < cables.size(); ++i)
    if (cables[i].element < cable_of.size()) cable_of[cables[i].element] = static_cast<int64_t>(i);
  // The agents (node, rail) the pass's paths name, by name.
  std::vector<Agent> agents;
  for (const PathRouter::Agent& a : router.Agents()) agents.push_back({in.names[a.node], in.names[a.rail], a.address});
  std::sort(agents.begin(), agents.end(),
            [](const Agent& a, const Agent& b) { return a.node != b.node ? a.node < b.node : a.rail < b.rail; });
  std::map<std::pair<std::string, std::string>, size_t> agent_index;
  for (size_t i = 0; i < agents.size(); ++i) agent_index[{agents[i].node, agents[i].rail}] = i;
  // The measured pairs crossing each cable (the router counted them), less
  // the last pass's targets (they do not count toward the need they were
  // chosen for).
  std::vector<int64_t> all(cables.size()), need(cables.size());
  const std::vector<int32_t>& crossing = router.PairsCrossing();
  for (size_t i = 0; i < cables.size(); ++i)
    all[i] = need[i] = cables[i].element < crossing.size() ? crossing[cables[i].element] : 0;
  std::set<std::pair<size_t, size_t>> previous;  // agent indexes
  for (const auto& [node, targets] : previous_.by_node)
    for (const CoverageTarget& t : targets) {
      auto s = agent_index.find({t.node, t.rail});
      auto d = agent_index.find({t.dst, t.rail});
      if (s == agent_index.end() || d == agent_index.end() || !previous.insert({s->second, d->second}).second) continue;
      if (const std::vector<uint32_t>* ids = router.MeasuredPair(agents[s->second].address, agents[d->second].address))
        for (uint32_t id : *ids)
          if (id < cable_of.size() && cable_of[id] >= 0) --need[static_cast<size_t>(cable_of[id])];
    }
  auto down = [&](size_t i) {
    const uint32_t e = cables[i].element;
    return e < in.elements.size() && in.elements[e].down;
  };
  auto wanting = [&](size_t i) { return !down(i) && need[i] < options_.min_paths; };

  const fabric::RouteTable* table = router.table();
  std::unordered_map<uint64_t, std::vector<size_t>> attached;  // switch GUID -> agents cabled to it
  if (table)
    for (size_t i = 0; i < agents.size(); ++i) {
      const fabric::FabricNode* n = table->Node(agents[i].address.node_guid);
      if (!n) continue;
      for (const fabric::FabricPort& p : n->ports)
        if (p.number == agents[i].address.port && p.remote) attached[p.remote->guid].push_back(i);
    }

  // The cables a pair's route crosses there and back; false when not routable.
  auto route = [&](size_t s, size_t d, std::vector<size_t>* crossed) {
    crossed->clear();
    c.traces += 2;
    const std::vector<uint32_t>* there = router.RouteOf(agents[s].address, agents[d].address.lid);
    const std::vector<uint32_t>* back = router.RouteOf(agents[d].address, agents[s].address.lid);
    if (!there || !back) return false;
    for (const auto* ids : {there, back})
      for (uint32_t id : *ids)
        if (id < cable_of.size() && cable_of[id] >= 0) crossed->push_back(static_cast<size_t>(cable_of[id]));
    std::sort(crossed->begin(), crossed->end());
    crossed->erase(std::unique(crossed->begin(), crossed->end()), crossed->end());
    return true;
  };
  std::vector<int> used(agents.size());
  std::set<std::pair<size_t, size_t>> chosen;
  std::set<std::string> target_links;
  // A pair measured only because it was a target last pass may be taken again.
  auto counted = [&](size_t s, size_t d) {
    return router.MeasuredPair(agents[s].address, agents[d].address) && !previous.count({s, d});
  };
  auto usable = [&](size_t s, size_t d) {
    const Agent& a = agents[s];
    const Agent& b = agents[d];
    return s != d && a.node != b.node && a.rail == b.rail && used[s] < options_.max_per_source &&
           !chosen.count({s, d}) && !counted(s, d) && !counted(d, s);
  };
  // Takes (s, d) when its route crosses a wanting cable; true when taken.
  auto take = [&](size_t s, size_t d, const std::vector<size_t>& crossed) {
    CoverageTarget t{agents[s].node, agents[s].rail, agents[d].node, {}};
    for (size_t i : crossed)
      if (wanting(i)) t.links.push_back(in.elements.size() > cables[i].element ? in.elements[cables[i].element].subject
                                                                                 : std::to_string(cables[i].element));
    if (t.links.empty()) return false;
    for (size_t i : crossed) ++need[i];
    for (const std::string& l : t.links) target_links.insert(l);
    ++used[s];
    chosen.insert({s, d});
    out.by_node[t.node].push_back(std::move(t));
    ++out.targets;
    return true;
  };

  std::vector<size_t> crossed;
  // The last pass's targets first, while they still cover what they were for.
  for (const auto& [node, targets] : previous_.by_node)
    for (const CoverageTarget& t : targets) {
      auto s = agent_index.find({t.node, t.rail});
      auto d = agent_index.find({t.dst, t.rail});
      if (s == agent_index.end() || d == agent_index.end() || !usable(s->second, d->second)) continue;
      if (route(s->second, d->second, &crossed)) take(s->second, d->second, crossed);
    }

  for (size_t i = 0; table && i < cables.size(); ++i) {
    if (!wanting(i)) continue;
    const std::string subject =
        in.elements.size() > cables[i].element ? in.elements[cables[i].element].subject : std::to_string(i);
    const uint64_t spread = PairHash(subject, "sources"), spread_dst = PairHash(subject, "destinations");
    for (const fabric::PortRef& x : {cables[i].a, cables[i].b}) {
      if (!wanting(i) || c.traces >= options_.max_traces) break;
      const fabric::FabricNode* sw = table->Node(x.guid);
      if (!sw || sw->lft.empty()) continue;
      std::vector<size_t> dsts;  // agents whose LID X forwards out of px, in agent order
      for (size_t d = 0; d < agents.size(); ++d) {
        const uint32_t lid = agents[d].address.lid;
        if (lid < sw->lft.size() && sw->lft[lid] == x.port) dsts.push_back(d);
      }
      if (dsts.empty()) continue;
      auto at = attached.find(x.guid);
      const bool near = at != attached.end() && !at->second.empty();
      std::vector<size_t> everyone;
      if (!near)
        for (size_t s = 0; s < agents.size(); ++s) everyone.push_back(s);
      const std::vector<size_t>& srcs = near ? at->second : everyone;
      for (size_t a = 0; a < srcs.size() && wanting(i) && c.traces < options_.max_traces; ++a) {
        const size_t s = srcs[(spread + a) % srcs.size()];
        for (size_t b = 0; b < dsts.size() && wanting(i) && c.traces < options_.max_traces; ++b) {
          const size_t d = dsts[(spread_dst + a + b) % dsts.size()];
          if (!usable(s, d)) continue;
          if (!route(s, d, &crossed) || !std::binary_search(crossed.begin(), crossed.end(), i)) continue;
          take(s, d, crossed);
          if (used[s] >= options_.max_per_source) break;
        }
      }
    }
  }

  for (size_t i = 0; i < cables.size(); ++i) {
    if (all[i] >= 1) ++c.switch_links_crossed;
    if (all[i] >= options_.min_paths) ++c.switch_links_covered;
    if (down(i)) continue;
    // need now counts the targets chosen: what is still below was not reached.
    const bool below = all[i] < options_.min_paths;
    if (below) ++c.switch_links_wanting;
    if (wanting(i)) ++c.switch_links_unreachable;
  }
  out.links = static_cast<int64_t>(target_links.size());
  c.coverage_targets = out.targets;
  c.coverage_target_links = out.links;
  if (coverage) *coverage = c;
  previous_ = out;
  return out;
}

void LinkTargetPlanner::AddTo(const LinkCoverage& coverage, nlohmann::json* fabric) {
  (*fabric)["switch_links_covered"] = coverage.switch_links_covered;
  (*fabric)["switch_links_unreachable"] = coverage.switch_links_unreachable;
  (*fabric)["coverage_targets"] = coverage.coverage_targets;
  (*fabric)["coverage_target_links"] = coverage.coverage_target_links;
  (*fabric)["min_paths_per_link"] = coverage.min_paths;
}

}  // namespace rdmascope::collector
