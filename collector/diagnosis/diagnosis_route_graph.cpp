// RouteGraph (contract in diagnosis_route_graph.h).
#include "collector/diagnosis/diagnosis_route_graph.h"

#include <algorithm>
#include <array>

namespace rdmascope::collector {
namespace {

constexpr int kMaxPort = 255;  // an InfiniBand node's ports are numbered 0..254 (255 is no route)

}  // namespace

void RouteGraph::Build(const fabric::Fabric& fabric, const std::function<uint32_t(uint64_t guid)>& switch_element,
                       const std::function<uint32_t(const fabric::PortRef& end)>& cable_element) {
  nodes_.clear(), ports_.clear(), lfts_.clear(), index_.clear();
  std::vector<const fabric::FabricNode*> kept;
  for (const fabric::FabricNode& n : fabric.nodes)
    if (index_.emplace(n.guid, static_cast<uint32_t>(kept.size())).second) kept.push_back(&n);
  nodes_.resize(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    const fabric::FabricNode& n = *kept[i];
    Node& node = nodes_[i];
    node.is_switch = n.type == fabric::NodeType::kSwitch;
    node.lid = n.lid;
    if (node.is_switch) {
      node.element = switch_element(n.guid);
      node.lft = static_cast<uint32_t>(lfts_.size());
      node.lft_size = static_cast<uint32_t>(n.lft.size());
      lfts_.insert(lfts_.end(), n.lft.begin(), n.lft.end());
    }
    int top = -1;
    for (const fabric::FabricPort& p : n.ports)
      if (p.number <= kMaxPort) top = std::max(top, p.number);
    node.ports = static_cast<uint32_t>(ports_.size());
    node.port_count = static_cast<uint32_t>(top + 1);
    ports_.resize(ports_.size() + node.port_count);
    for (const fabric::FabricPort& p : n.ports) {
      if (p.number < 0 || p.number > kMaxPort) continue;
      Port& port = ports_[node.ports + p.number];
      if (port.present) continue;  // the first of a repeated number, as RouteTable finds it
      port.present = true;
      port.lid = p.lid;
      if (!p.remote) continue;
      auto next = index_.find(p.remote->guid);
      if (next != index_.end()) port.next = next->second, port.next_port = p.remote->port;
      port.cable = cable_element(fabric::PortRef{n.guid, p.number});
    }
  }
}

bool RouteGraph::TraceInto(uint64_t guid, int port, uint32_t to_lid, std::vector<uint32_t>* ids) const {
  auto start = index_.find(guid);
  if (start == index_.end()) return false;
  constexpr int kMost = fabric::RouteTable::kMaxHops + 2;  // a walk longer than this is a loop, refused below
  std::array<uint32_t, kMost> switches, cables;
  int n_switches = 0, n_cables = 0;
  uint32_t at = start->second;
  int in_port = 0, out_port = port;
  for (int hops = 0;; ++hops) {
    const Node& node = nodes_[at];
    bool arrived = false;
    if (node.is_switch) {
      if (hops > fabric::RouteTable::kMaxHops || node.lft_size == 0 || to_lid >= node.lft_size) return false;
      const uint8_t egress = lfts_[node.lft + to_lid];
      if (egress == fabric::kNoRoute) return false;
      out_port = egress;
      if (node.element != kNone) switches[n_switches++] = node.element;
      if (out_port == 0) {
        if (node.lid != to_lid) return false;
        arrived = true;
      }
    } else if (hops > 0) {
      const Port* in = PortOf(node, in_port);
      if (!in || in->lid != to_lid) return false;
      arrived = true;
    } else {
      const Port* own = PortOf(node, out_port);
      arrived = own && own->lid == to_lid;
    }
    if (arrived) {
      ids->insert(ids->end(), switches.begin(), switches.begin() + n_switches);
      ids->insert(ids->end(), cables.begin(), cables.begin() + n_cables);
      return true;
    }
    const Port* out = PortOf(node, out_port);
    if (!out || out->next == kNone || n_cables == kMost) return false;
    if (out->cable != kNone) cables[n_cables++] = out->cable;
    in_port = out->next_port;
    at = out->next;
  }
}

}  // namespace rdmascope::collector
