#include "collector/readmodel/pinglist.h"

#include <algorithm>

namespace rdmascope::collector {
namespace {

using nlohmann::json;

std::string Label(const NodeInfo& n, const std::string& key) {
  auto it = n.labels.find(key);
  return (it != n.labels.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

// The first `count` of `nodes` in hash order for `requester`, returned in name order.
std::vector<const NodeInfo*> Sample(std::vector<const NodeInfo*> nodes, const std::string& requester, size_t count) {
  if (nodes.size() > count) {
    std::sort(nodes.begin(), nodes.end(), [&](const NodeInfo* a, const NodeInfo* b) {
      uint64_t ha = PairHash(requester, a->name), hb = PairHash(requester, b->name);
      return ha != hb ? ha < hb : a->name < b->name;
    });
    nodes.resize(count);
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

// The node's group: its group label when set (labels win), else its leaf
// switch when the fabric is known ("leaf:" + GUID), else "".
static std::string GroupOf(const NodeInfo& n, const PinglistOptions& o) { return NodeGroup(n, o.group_label); }

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

json BuildPinglist(const std::string& requester, const std::vector<NodeInfo>& nodes, int64_t now_ms,
                   const PinglistOptions& o, const std::string& rail) {
  std::string group;
  for (const NodeInfo& n : nodes)
    if (n.name == requester) group = GroupOf(n, o);
  std::vector<const NodeInfo*> same, other;
  for (const NodeInfo& n : nodes) {
    if (n.name == requester || now_ms - n.last_report_at > o.max_age_ms) continue;
    if (!rail.empty() && !NodeHasRail(n, rail)) continue;
    (GroupOf(n, o) == group ? same : other).push_back(&n);
  }
  size_t budget = static_cast<size_t>(std::max(o.max_targets, 0));
  size_t cross = std::min({static_cast<size_t>(std::max(o.cross_group_targets, 0)), other.size(), budget});
  std::vector<const NodeInfo*> picked = Sample(same, requester, budget - cross);
  for (const NodeInfo* n : Sample(other, requester, cross)) picked.push_back(n);

  json targets = json::array();
  for (const NodeInfo* n : picked) {
    std::string host = Label(*n, "control_host");
    std::string port = Label(*n, "control_port");
    json t = {{"node", n->name},
              {"host", host.empty() ? n->name : host},
              {"control_port", PortOr(port, o.default_control_port)},
              {"group", GroupOf(*n, o)},
              {"same_group", GroupOf(*n, o) == group}};
    targets.push_back(std::move(t));
  }
  return {{"schema_version", 1},
          {"node", requester},
          {"group", group},
          {"generated_at_ms", now_ms},
          {"max_targets", o.max_targets},
          {"rail", rail.empty() ? json(nullptr) : json(rail)},
          {"targets", targets}};
}

std::string NodeGroup(const NodeInfo& n, const std::string& group_label) {
  std::string g = Label(n, group_label);
  if (g.empty() && !n.leaf_switch.empty()) g = "leaf:" + n.leaf_switch;
  return g;
}

}  // namespace rdmascope::collector
