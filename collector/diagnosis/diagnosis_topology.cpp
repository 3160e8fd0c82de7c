// ApplyTopology (contract in diagnosis_topology.h).
#include "collector/diagnosis/diagnosis_topology.h"

#include <unordered_map>

namespace rdmascope::collector {

void ApplyTopology(const RoceTopology& t, diagnosis::Input* in) {
  if (t.empty()) return;
  std::unordered_map<std::string, int32_t> ids;  // group name -> Input::group_names index
  for (size_t g = 0; g < in->group_names.size(); ++g) ids.emplace(in->group_names[g], static_cast<int32_t>(g));
  auto id_of = [&](const std::string& name) {
    auto [it, added] = ids.try_emplace(name, static_cast<int32_t>(in->group_names.size()));
    if (added) in->group_names.push_back(name);
    return it->second;
  };
  // (node, rail, device) ids -> group id (-2: the file does not place it), looked up once per end.
  struct Key {
    uint32_t node, rail, device;
    bool operator==(const Key& o) const { return node == o.node && rail == o.rail && device == o.device; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return (static_cast<size_t>(k.node) * 0x9e3779b97f4a7c15ull) ^ (static_cast<size_t>(k.rail) << 40) ^
             (static_cast<size_t>(k.device) << 20);
    }
  };
  std::unordered_map<Key, int32_t, KeyHash> memo;
  const diagnosis::Names& names = in->names;
  auto group = [&](uint32_t node, uint32_t rail, uint32_t device) {
    auto [it, added] = memo.try_emplace(Key{node, rail, device}, -2);
    if (added)
      if (const RoceLeaf* l = t.LeafOf(names[node], names[rail], names[device])) it->second = id_of(l->name);
    return it->second;
  };
  std::unordered_map<uint64_t, uint32_t> rail_of;  // node id << 32 | device id -> the rail its paths name
  for (diagnosis::PathSummary& p : in->paths) {
    if (const int32_t g = group(p.src, p.rail, p.src_device); g >= 0) p.src_group = g;
    if (const int32_t g = group(p.dst, p.rail, p.dst_device); g >= 0) p.dst_group = g;
    if (p.src_device != 0) rail_of.try_emplace(static_cast<uint64_t>(p.src) << 32 | p.src_device, p.rail);
  }
  for (diagnosis::NodeFacts& n : in->nodes)
    if (const RoceLeaf* l = t.FirstLeafOf(n.name)) n.group = l->name;
  for (diagnosis::PortFacts& port : in->ports) {
    if (!port.switch_guid.empty()) continue;
    const int64_t node = names.Find(port.node), device = names.Find(port.device);
    auto r = node < 0 || device < 0 ? rail_of.end()
                                    : rail_of.find(static_cast<uint64_t>(node) << 32 | static_cast<uint64_t>(device));
    if (const RoceLeaf* l = t.LeafOf(port.node, r == rail_of.end() ? "" : names[r->second], port.device))
      port.switch_guid = port.switch_description = l->name;
  }
  for (const RoceLeaf& l : t.leaves) {
    diagnosis::TierLeaf leaf{l.name, {}, {}};
    for (const RoceUplink& u : l.uplinks) leaf.uplinks.push_back(UplinkName(l.name, u)), leaf.spines.push_back(u.spine);
    in->tier_leaves.push_back(std::move(leaf));
  }
}

}  // namespace rdmascope::collector
