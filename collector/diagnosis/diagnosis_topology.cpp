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
  // (node, rail, device) -> group id (-2: the file does not place it), looked up once per end.
  std::unordered_map<std::string, int32_t> memo;
  auto group = [&](const std::string& node, const std::string& rail, const std::string& device) {
    std::string key = node;
    key.append(1, '\0').append(rail).append(1, '\0').append(device);
    auto [it, added] = memo.try_emplace(std::move(key), -2);
    if (added)
      if (const RoceLeaf* l = t.LeafOf(node, rail, device)) it->second = id_of(l->name);
    return it->second;
  };
  std::unordered_map<std::string, std::string> rail_of;  // node '\0' device -> the rail its paths name
  for (diagnosis::PathSummary& p : in->paths) {
    if (const int32_t g = group(p.src, p.rail, p.src_device); g >= 0) p.src_group = g;
    if (const int32_t g = group(p.dst, p.rail, p.dst_device); g >= 0) p.dst_group = g;
    if (!p.src_device.empty()) rail_of.try_emplace(p.src + '\0' + p.src_device, p.rail);
  }
  for (diagnosis::NodeFacts& n : in->nodes)
    if (const RoceLeaf* l = t.FirstLeafOf(n.name)) n.group = l->name;
  for (diagnosis::PortFacts& port : in->ports) {
    if (!port.switch_guid.empty()) continue;
    auto r = rail_of.find(port.node + '\0' + port.device);
    if (const RoceLeaf* l = t.LeafOf(port.node, r == rail_of.end() ? "" : r->second, port.device))
      port.switch_guid = port.switch_description = l->name;
  }
  for (const RoceLeaf& l : t.leaves) {
    diagnosis::TierLeaf leaf{l.name, {}, {}};
    for (const RoceUplink& u : l.uplinks) leaf.uplinks.push_back(UplinkName(l.name, u)), leaf.spines.push_back(u.spine);
    in->tier_leaves.push_back(std::move(leaf));
  }
}

}  // namespace rdmascope::collector
