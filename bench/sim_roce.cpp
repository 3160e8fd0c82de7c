#include "bench/sim_roce.h"

#include <algorithm>
#include <map>

namespace rdmascope::bench {

using nlohmann::json;

namespace {

std::string LinkText(const std::string& leaf, const std::string& spine, int port, bool with_port) {
  return leaf + (with_port ? "/" + std::to_string(port) : "") + "<->" + spine;
}

}  // namespace

RoceFabric::RoceFabric(const SimTopology& topo) : topo_(topo) {
  for (const SimPlane& sp : topo.planes) {
    Plane p;
    const fabric::Fabric& f = *sp.fabric;
    std::unordered_map<uint64_t, fabric::NodeType> type;
    for (const fabric::FabricNode& n : f.nodes) type[n.guid] = n.type;
    for (const fabric::FabricNode& n : f.nodes) {
      if (n.type != fabric::NodeType::kSwitch) continue;
      p.names[n.guid] = n.description.empty() ? fabric::GuidText(n.guid) : n.description;
      bool leaf = false;
      std::vector<Uplink> up;
      for (const fabric::FabricPort& port : n.ports) {
        if (!port.remote) continue;
        auto t = type.find(port.remote->guid);
        if (t == type.end()) continue;
        if (t->second == fabric::NodeType::kCa) leaf = true;
        if (t->second == fabric::NodeType::kSwitch) up.push_back({port.number, port.remote->guid, port.remote->port});
      }
      if (leaf) {
        p.leaves.push_back(n.guid);
        p.uplinks[n.guid] = std::move(up);
      } else {
        p.spines.push_back(n.guid);
      }
    }
    planes_.push_back(std::move(p));
  }
}

const std::string& RoceFabric::Name(int plane, uint64_t guid) const {
  static const std::string kNone;
  const auto& names = planes_[static_cast<size_t>(plane)].names;
  auto it = names.find(guid);
  return it == names.end() ? kNone : it->second;
}

json RoceFabric::TopologyJson() const {
  json leaves = json::array(), spines = json::array();
  std::map<std::pair<int, uint64_t>, json> hosts;  // (plane, leaf) -> its hosts
  for (const SimHost& h : topo_.hosts)
    for (const SimNic& n : h.nics) hosts[{n.plane, n.leaf_guid}].push_back({{"node", h.name}, {"rail", n.rail}});
  for (size_t k = 0; k < planes_.size(); ++k) {
    const Plane& p = planes_[k];
    for (uint64_t s : p.spines) spines.push_back({{"name", p.names.at(s)}});
    for (uint64_t l : p.leaves) {
      std::map<uint64_t, int> per_spine;
      for (const Uplink& u : p.uplinks.at(l)) ++per_spine[u.spine];
      json up = json::array();
      for (const Uplink& u : p.uplinks.at(l)) {
        json e = {{"spine", p.names.at(u.spine)}};
        if (per_spine[u.spine] > 1) e["port"] = u.port;
        up.push_back(std::move(e));
      }
      auto hs = hosts.find({static_cast<int>(k), l});
      leaves.push_back({{"name", p.names.at(l)},
                        {"hosts", hs == hosts.end() ? json::array() : hs->second},
                        {"uplinks", std::move(up)}});
    }
  }
  return {{"leaves", std::move(leaves)}, {"spines", std::move(spines)}};
}

RoceFabric::Crossing RoceFabric::Direction(int plane, size_t from_host, const SimNic& from, size_t to_host,
                                           const SimNic& to) const {
  Crossing c;
  c.switches.push_back(from.leaf_guid);
  if (from.leaf_guid == to.leaf_guid) return c;
  const Plane& p = planes_[static_cast<size_t>(plane)];
  auto ups = p.uplinks.find(from.leaf_guid);
  if (ups == p.uplinks.end() || ups->second.empty()) return c;
  const uint64_t hash = Mix((static_cast<uint64_t>(from_host) << 32) ^ static_cast<uint64_t>(to_host) ^
                            (static_cast<uint64_t>(plane) << 56));
  const Uplink& u = ups->second[hash % ups->second.size()];
  c.cables.push_back({fabric::PortRef{from.leaf_guid, u.port}, fabric::PortRef{u.spine, u.spine_port}});
  c.switches.push_back(u.spine);
  auto down = p.uplinks.find(to.leaf_guid);
  if (down != p.uplinks.end())
    for (const Uplink& d : down->second)
      if (d.spine == u.spine) {
        c.cables.push_back({fabric::PortRef{u.spine, d.spine_port}, fabric::PortRef{to.leaf_guid, d.port}});
        break;
      }
  c.switches.push_back(to.leaf_guid);
  return c;
}

void RoceFabric::Expect(Fault* f) const {
  Expected& e = f->expected;
  if (f->kind == FaultKind::kGroup && e.subject.rfind("leaf:", 0) == 0) {
    uint64_t guid = 0;
    for (size_t k = 0; k < planes_.size(); ++k)
      if (fabric::ParseGuid(e.subject.substr(5), &guid) && planes_[k].names.count(guid)) {
        e.scope = "switch";
        e.subject = Name(static_cast<int>(k), guid);
      }
    return;
  }
  if (f->plane < 0) return;
  const Plane& p = planes_[static_cast<size_t>(f->plane)];
  if (f->kind == FaultKind::kLink) {
    for (const auto* end : {&f->end_a, &f->end_b}) {
      auto ups = p.uplinks.find(end->guid);
      if (ups == p.uplinks.end()) continue;
      std::map<uint64_t, int> per_spine;
      for (const Uplink& u : ups->second) ++per_spine[u.spine];
      for (const Uplink& u : ups->second)
        if (u.port == end->port) {
          e.scope = "switch";
          e.subject = Name(f->plane, end->guid);
          e.candidate = LinkText(e.subject, Name(f->plane, u.spine), u.port, per_spine[u.spine] > 1);
          return;
        }
    }
    return;
  }
  if (f->kind != FaultKind::kSwitch) return;
  if (p.uplinks.count(f->switch_guid)) {
    e.subject = Name(f->plane, f->switch_guid);
    return;
  }
  std::vector<std::string> names;
  for (uint64_t g : p.spines) names.push_back(Name(f->plane, g));
  std::sort(names.begin(), names.end());
  e.subject = names.size() == 1     ? names.front()
              : planes_.size() == 1 ? std::string("spines")
                                    : "spines:" + names.front() + ".." + names.back();
}

}  // namespace rdmascope::bench
