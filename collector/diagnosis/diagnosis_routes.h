// The fabric elements each probed pair crosses, from the InfiniBand topology
// and forwarding tables the store keeps (the newest sweep of each subnet):
// what lets the vote intersect bad paths on a link instead of guessing.
//
// Contract:
//  - Refresh() reads the topology again only when the store's topology
//    version moved (a sweep changed a table, a LID, a link), and the agents'
//    port addresses every time (cheap; an agent's LID may change without the
//    fabric changing). Elements are every switch and every cable between two
//    nodes of the topology, numbered for one version.
//  - A cable this router saw in an earlier version whose two ports are still
//    in the topology without any cable (a link gone, a switch that stopped
//    answering) stays in for tracing, marked down: until the subnet manager
//    routes around it, the forwarding tables still send packets into it, and
//    the paths they spoil are its evidence. A port cabled anew forgets it.
//    Likewise a node an earlier version had (a switch that stopped
//    answering) stays in, as last seen.
//  - Resolve() sets, for every path whose two ends are InfiniBand ports of
//    the topology (node, device and, when the summary names it, port), its
//    `crosses`: the cables and switches of the route src -> dst and of the
//    route back (probes are round trips), each once; and fills
//    Input::elements. A path with an end outside the topology (RoCE, not
//    swept, no LID) or whose route cannot be walked gets none, and is
//    counted in Coverage::unrouted. Routes are cached per (source port,
//    destination LID) for as long as the topology version holds.
//  - Coverage() after Resolve(): how many of the topology's inter-switch
//    cables the measured paths cross, and the paths routed / not.
//  - Not thread-safe: one diagnosis worker owns it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/store/storage.h"
#include "fabric/routes.h"

namespace rdmascope::collector {

struct RouteCoverage {
  int64_t switch_links = 0, switch_links_crossed = 0;  // cables between two switches
  int64_t paths_routed = 0, paths_unrouted = 0;
};

class PathRouter {
 public:
  struct PortAddress {  // one of an agent's ports
    std::string device;
    int port;
    FabricAddress address;
  };
  Status Refresh(Storage& store);
  // rises: the fabric ports' counters that rose; each cable gets its two
  // ends' as FabricElement::moved.
  void Resolve(diagnosis::Input* in, const std::map<fabric::PortRef, std::vector<diagnosis::CounterDelta>>& rises = {});
  const RouteCoverage& Coverage() const { return coverage_; }
  int64_t version() const { return version_; }

  // --- For the link coverage targets (diagnosis_link_targets.h) ---
  // The cables between two switches: their element (Input::elements) and
  // two ends, by element; an agent port's address (as Resolve finds it); the
  // elements a route crosses one way (null: not routable), from the same
  // cache as Resolve's.
  struct SwitchCable {
    uint32_t element;
    fabric::PortRef a, b;
  };
  std::vector<SwitchCable> SwitchCables() const {
    std::map<uint32_t, SwitchCable> by;
    for (const auto& [end, id] : cable_) {
      if (!switch_link_[id]) continue;
      auto [it, fresh] = by.try_emplace(id, SwitchCable{id, end, end});
      if (!fresh) it->second.b = end;
    }
    std::vector<SwitchCable> out;
    for (const auto& [id, c] : by) out.push_back(c);
    return out;
  }
  const fabric::RouteTable* table() const { return table_.get(); }
  const FabricAddress* Address(const std::string& node, const std::string& device, int64_t port) const {
    auto it = addresses_.find(node);
    return it == addresses_.end() ? nullptr : AddressOf(&it->second, device, port);
  }
  const std::vector<uint32_t>* RouteOf(const FabricAddress& from, uint32_t to_lid) {
    return table_ ? Route(from, to_lid) : nullptr;
  }
  // --- end of the link coverage accessors ---

 private:
  const std::vector<uint32_t>* Route(const FabricAddress& from, uint32_t to_lid);
  static const FabricAddress* AddressOf(const std::vector<PortAddress>* ports, const std::string& device,
                                        int64_t port);
  void Index();

  int64_t version_ = -1;
  FabricTopology topology_;
  std::unique_ptr<fabric::RouteTable> table_;
  std::unordered_map<std::string, std::vector<PortAddress>> addresses_;  // node -> its ports, in port order
  std::map<fabric::PortRef, fabric::RemoteEnd> remembered_;        // every cable end seen, while not recabled
  std::map<uint64_t, fabric::FabricNode> remembered_nodes_;       // every node as last seen
  std::vector<diagnosis::FabricElement> elements_;
  std::vector<bool> switch_link_;                                 // per element: a cable between two switches
  std::map<fabric::PortRef, uint32_t> cable_;                     // either end -> its element
  std::unordered_map<uint64_t, uint32_t> switch_;                 // switch GUID -> its element
  std::unordered_map<uint64_t, std::vector<uint32_t>> routes_;    // (guid, port, lid) key -> elements
  RouteCoverage coverage_;
};

}  // namespace rdmascope::collector
