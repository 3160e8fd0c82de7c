#include "collector/readmodel/pinglist.h"

#include <algorithm>

#include "collector/readmodel/pinglist_coverage.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;

std::string Label(const NodeInfo& n, const std::string& key) {
  if (!n.labels.is_object()) return std::string();
  auto it = n.labels.find(key);
  return (it != n.labels.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

// The first `count` of `nodes` in hash order for `requester`, returned in name order.
std::vector<const NodeInfo*> Sample(std::vector<const NodeInfo*> nodes, const std::string& requester, size_t count) {
  if (nodes.size() > count) {
    std::vector<std::pair<uint64_t, const NodeInfo*>> keyed;
    keyed.reserve(nodes.size());
    for (const NodeInfo* n : nodes) keyed.emplace_back(PairHash(requester, n->name), n);
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second->name < b.second->name;
    });
    nodes.clear();
    for (size_t i = 0; i < count; ++i) nodes.push_back(keyed[i].second);
  }
  std::sort(nodes.begin(), nodes.end(), [](const NodeInfo* a, const NodeInfo* b) { return a->name < b->name; });
  return nodes;
}

// A port label: digits 1..65535, else the default.
int PortOr(const std::string& text, int fallback) {
  if (text.empty() || text.size() > 5) return fallback;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return fallback;
    v = v * 10 + (c - '0');
  }
  return (v >= 1 && v <= 65535) ? v : fallback;
}

}  // namespace

uint64_t PairHash(const std::string& a, const std::string& b) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](char c) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  };
  for (char c : a) mix(c);
  mix('|');
  for (char c : b) mix(c);
  return h;
}

bool NodeHasRail(const NodeInfo& n, const std::string& rail) {
  const std::string rails = Label(n, "rails");
  if (rails.empty()) return rail == "0";
  return ("," + rails + ",").find("," + rail + ",") != std::string::npos;
}

std::string NodeGroup(const NodeInfo& n, const std::string& group_label) {
  std::string g = Label(n, group_label);
  if (g.empty() && !n.leaf_switch.empty()) g = "leaf:" + n.leaf_switch;
  return g;
}

std::string NodeGroup(const NodeInfo& n, const std::string& group_label, const std::string& rail) {
  std::string g = Label(n, group_label);
  if (!g.empty()) return g;
  auto it = n.rail_leaves.find(rail);
  const std::string& leaf = it != n.rail_leaves.end() && !it->second.empty() ? it->second : n.leaf_switch;
  return leaf.empty() ? std::string() : "leaf:" + leaf;
}

std::string PinglistPlan::GroupOfNode(const NodeInfo& n) const {
  return rail_.empty() ? NodeGroup(n, options_.group_label) : NodeGroup(n, options_.group_label, rail_);
}

PinglistPlan::PinglistPlan(const std::vector<NodeInfo>& nodes, int64_t now_ms, const PinglistOptions& options,
                           const std::string& rail)
    : options_(options), rail_(rail), now_ms_(now_ms) {
  if (options_.rotation_ms > 0 && now_ms > 0) period_ = static_cast<uint64_t>(now_ms / options_.rotation_ms);
  std::unordered_map<std::string, size_t> index;  // group name -> position in groups_ (first seen)
  known_.reserve(nodes.size());
  candidates_.reserve(nodes.size());
  std::vector<std::vector<std::pair<uint64_t, const NodeInfo*>>> keyed;
  for (const NodeInfo& n : nodes) {
    known_.emplace(n.name, &n);
    if (now_ms - n.last_report_at > options_.max_age_ms) continue;
    if (!rail_.empty() && !NodeHasRail(n, rail_)) continue;
    std::string g = GroupOfNode(n);
    auto [it, fresh] = index.emplace(g, groups_.size());
    if (fresh) {
      groups_.push_back(Group{g, {}});
      keyed.emplace_back();
    }
    keyed[it->second].emplace_back(PairHash(g, n.name), &n);
  }
  // Groups by name, members by hash: the same numbering for every requester.
  std::vector<size_t> order(groups_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return groups_[a].name < groups_[b].name; });
  std::vector<Group> sorted;
  sorted.reserve(groups_.size());
  for (size_t gi : order) {
    auto& members = keyed[gi];
    std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second->name < b.second->name;
    });
    Group g{std::move(groups_[gi].name), {}};
    g.members.reserve(members.size());
    for (const auto& m : members) {
      candidates_.emplace(m.second->name, Place{sorted.size(), g.members.size()});
      g.members.push_back(m.second);
    }
    sorted.push_back(std::move(g));
  }
  groups_ = std::move(sorted);
}

json PinglistPlan::Target(const NodeInfo& n, const std::string& group, bool same) const {
  std::string host = Label(n, "control_host");
  std::string port = Label(n, "control_port");
  return {{"node", n.name},
          {"host", host.empty() ? n.name : host},
          {"control_port", PortOr(port, options_.default_control_port)},
          {"group", group},
          {"same_group", same}};
}

json PinglistPlan::For(const std::string& requester, const CoverageTargets* targets) const {
  // Where the requester stands: a candidate has its place; anyone else takes
  // its group from the node list (or "" when unknown).
  std::string group;
  size_t own = groups_.size(), member = 0;  // own == groups_.size(): its group has no candidates
  bool candidate = false;
  if (auto c = candidates_.find(requester); c != candidates_.end()) {
    own = c->second.group;
    member = c->second.member;
    group = groups_[own].name;
    candidate = true;
  } else {
    if (auto k = known_.find(requester); k != known_.end()) group = GroupOfNode(*k->second);
    auto g = std::lower_bound(groups_.begin(), groups_.end(), group,
                              [](const Group& x, const std::string& name) { return x.name < name; });
    if (g != groups_.end() && g->name == group) {
      own = static_cast<size_t>(g - groups_.begin());
      member = PairHash(group, requester) % g->members.size();
    }
  }

  // Across groups: the requester's slots (pinglist_coverage.h).
  const size_t size = own < groups_.size() ? groups_[own].members.size() : 1;
  const size_t others = own < groups_.size() ? groups_.size() - 1 : groups_.size();
  const size_t k = CoverageCopies(size, options_.sources_per_group_pair);
  std::vector<std::pair<size_t, const NodeInfo*>> cross;  // (group, target) in slot order
  // A small fleet (a lab) is probed as a full mesh.
  const bool mesh = candidates_.size() <= static_cast<size_t>(std::max(options_.mesh_max_nodes, 0));
  for (size_t gi = 0; mesh && gi < groups_.size(); ++gi)
    if (gi != own)
      for (const NodeInfo* n : groups_[gi].members) cross.emplace_back(gi, n);
  for (const CrossSlot& s : mesh ? std::vector<CrossSlot>() : CrossSlotsOf(size, member, others, k, period_)) {
    const size_t gi = (own < groups_.size() && s.other >= own) ? s.other + 1 : s.other;
    const Group& b = groups_[gi];
    const size_t m = CrossMemberOf(b.members.size(), PairHash(group, b.name), k, s.copy, period_);
    cross.emplace_back(gi, b.members[m]);
  }

  // Link coverage targets (coverage_targets.h): first, each once; one that
  // is also a cross or own-group target moves up.
  std::vector<std::pair<size_t, const NodeInfo*>> links;  // (group, target) in the diagnosis's order
  std::vector<const CoverageTarget*> link_of;             // per entry of links: the target
  if (targets)
    for (const CoverageTarget* t : targets->Of(requester, rail_)) {
      auto c = candidates_.find(t->dst);
      if (t->dst == requester || c == candidates_.end()) continue;
      const NodeInfo* n = groups_[c->second.group].members[c->second.member];
      if (std::any_of(links.begin(), links.end(), [n](const auto& l) { return l.second == n; })) continue;
      links.emplace_back(c->second.group, n);
      link_of.push_back(t);
    }
  cross.erase(std::remove_if(cross.begin(), cross.end(),
                             [&](const auto& x) {
                               return std::any_of(links.begin(), links.end(),
                                                  [&](const auto& l) { return l.second == x.second; });
                             }),
              cross.end());

  const size_t budget = static_cast<size_t>(std::max(options_.max_targets, 0));
  const size_t links_dropped = links.size() > budget ? links.size() - budget : 0;
  if (links.size() > budget) links.resize(budget);
  std::vector<std::string_view> link_cables;  // the distinct cables the kept ones are for
  for (size_t i = 0; i < links.size(); ++i)
    for (const std::string& l : link_of[i]->links)
      if (std::find(link_cables.begin(), link_cables.end(), l) == link_cables.end()) link_cables.push_back(l);
  const size_t cross_budget = budget - links.size();
  json dropped_groups = json::array();
  for (size_t i = cross_budget; i < cross.size(); ++i) dropped_groups.push_back(groups_[cross[i].first].name);
  const size_t cross_needed = cross.size();
  if (cross.size() > cross_budget) cross.resize(cross_budget);

  std::vector<const NodeInfo*> same;
  if (own < groups_.size())
    for (const NodeInfo* n : groups_[own].members)
      if (n->name != requester &&
          std::none_of(links.begin(), links.end(), [n](const auto& l) { return l.second == n; }))
        same.push_back(n);
  const size_t same_room = cross_budget - cross.size();
  const size_t same_dropped = same.size() > same_room ? same.size() - same_room : 0;
  same = Sample(std::move(same), requester, same_room);

  json list = json::array();
  for (const NodeInfo* n : same) list.push_back(Target(*n, group, true));
  for (const auto& [gi, n] : cross) list.push_back(Target(*n, groups_[gi].name, false));
  for (const auto& [gi, n] : links) list.push_back(Target(*n, groups_[gi].name, gi == own));

  json coverage = {{"groups", groups_.size()},
                   {"sources_per_pair", k},
                   {"cross_targets", cross_needed},
                   {"period", period_},
                   {"rotation_ms", options_.rotation_ms},
                   {"complete", dropped_groups.empty() && same_dropped == 0 && links_dropped == 0},
                   {"dropped_cross_groups", std::move(dropped_groups)},
                   {"dropped_same_group", same_dropped},
                   {"link_targets", links.size()},
                   {"links", link_cables.size()}};
  if (links_dropped > 0) coverage["dropped_link_targets"] = links_dropped;
  if (!candidate) coverage["requester_is_candidate"] = false;
  return {{"schema_version", 1},
          {"node", requester},
          {"group", group},
          {"generated_at_ms", now_ms_},
          {"max_targets", options_.max_targets},
          {"rail", rail_.empty() ? json(nullptr) : json(rail_)},
          {"coverage", std::move(coverage)},
          {"targets", std::move(list)}};
}

json BuildPinglist(const std::string& requester, const std::vector<NodeInfo>& nodes, int64_t now_ms,
                   const PinglistOptions& options, const std::string& rail, const CoverageTargets* targets) {
  return PinglistPlan(nodes, now_ms, options, rail).For(requester, targets);
}

}  // namespace rdmascope::collector
