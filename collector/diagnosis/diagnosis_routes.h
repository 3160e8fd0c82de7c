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
//    route (`routed`, read through Crosses()): the cables and switches of
//    the route src -> dst and of the route back (probes are round trips),
//    each once; and fills Input::elements. A path with an end outside the
//    topology (RoCE, not swept, no LID) or whose route cannot be walked
//    gets none (`routed` null), and is counted in Coverage::unrouted; a
//    path's own `crosses` (what a caller without a router fills) is left as
//    it is. Each pair's merged list (shared by its transports) is kept per
//    (source address, destination address). When the topology version
//    moves and the elements keep their numbers (no node or cable came or
//    went for good), a pair traced in the version before stays as it is
//    unless a switch on it changed its forwarding table; otherwise it is
//    traced again, in place, the first time a path names it.
//  - Resolve() also notes, for the link coverage targets: the agents (each
//    (node, rail) a path names with a device that has an address: its first
//    such address, in order of first appearance), and per element the
//    distinct measured pairs (source and destination address; run, sent
//    probes) whose route there or back crosses it (PairsCrossing()), and
//    answers which pairs this pass measured (MeasuredPair()).
//  - Coverage() after Resolve(): how many of the topology's inter-switch
//    cables the measured paths cross, and the paths routed / not.
//  - Not thread-safe: one diagnosis worker owns it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_route_graph.h"
#include "collector/store/storage.h"
#include "fabric/routes.h"

namespace rdmascope::collector {

struct RouteCoverage {
  int64_t switch_links = 0, switch_links_crossed = 0;  // cables between two switches
  int64_t paths_routed = 0, paths_unrouted = 0;
  int64_t pairs_traced = 0;  // pairs whose routes this pass walked: new ones, or a table on them changed
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
    std::map<uint32_t, SwitchCable> by;  // a: the lower end, b: the higher
    for (const auto& [end, id] : cable_) {
      if (!switch_link_[id]) continue;
      auto [it, fresh] = by.try_emplace(id, SwitchCable{id, end, end});
      if (fresh) continue;
      if (end < it->second.a) it->second.a = end;
      else it->second.b = end;
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
  struct Agent {
    uint32_t node, rail;  // Input::names ids of the pass Resolve() saw
    FabricAddress address;
  };
  const std::vector<Agent>& Agents() const { return agents_; }
  // Per element: the distinct pairs measured this pass that cross it.
  const std::vector<int32_t>& PairsCrossing() const { return pairs_crossing_; }
  // The elements the pair from -> to crosses, there and back, when this
  // pass measured it over a route; null otherwise.
  const std::vector<uint32_t>* MeasuredPair(const FabricAddress& from, const FabricAddress& to) const;
  // --- end of the link coverage accessors ---

 private:
  struct PortKey {  // one end's address: its node GUID, port and LID
    uint64_t guid, port_lid;
    bool operator==(const PortKey& o) const { return guid == o.guid && port_lid == o.port_lid; }
    bool operator!=(const PortKey& o) const { return !(*this == o); }
  };
  struct PortKeyHash {
    size_t operator()(const PortKey& k) const;
  };
  struct PairRoute {
    std::vector<uint32_t> crosses;  // empty: not routable in version `traced`
    uint64_t measured_in = 0;       // the pass (pass_) that last counted it as measured
    int64_t traced = -1;            // the topology version crosses were traced in
  };
  struct PortRefHash {
    size_t operator()(const fabric::PortRef& p) const {
      return static_cast<size_t>(p.guid * 0x9e3779b97f4a7c15ull) ^ static_cast<size_t>(p.port);
    }
  };
  static PortKey KeyOf(const FabricAddress& a);
  // The pairs from one source address, in the order passes name them: a
  // pass names a source's pairs in the same order as the pass before while
  // the pinglists stay, so the next pair is most often the one after the
  // last (cursor), and a new or moved one is found by a scan of the
  // source's few dozen, from the cursor on.
  struct SourcePairs {
    std::vector<std::pair<PortKey, PairRoute*>> pairs;
    size_t cursor = 0;  // just after the pair last named
  };
  uint32_t SourceOf(const FabricAddress& a);
  // The pair source -> b, made when new, brought to this version.
  PairRoute& PairFrom(uint32_t source, const FabricAddress& a, const FabricAddress& b);
  // Where `to` is in the source's list (its size when absent), scanning from the cursor.
  static size_t IndexOf(const SourcePairs& s, const PortKey& to);
  // The pair brought to this version: kept, or traced again in place.
  PairRoute& Current(PairRoute& pair, const FabricAddress& a, const FabricAddress& b);
  const std::vector<uint32_t>* Route(const FabricAddress& from, uint32_t to_lid);
  // Appends the elements of the route from -> to_lid; false when it cannot be walked.
  bool TraceInto(const FabricAddress& from, uint32_t to_lid, std::vector<uint32_t>* ids) const;
  static const FabricAddress* AddressOf(const std::vector<PortAddress>* ports, const std::string& device,
                                        int64_t port);
  void Index();
  // After Index(): which switches' tables changed since the version before,
  // and whether that version's pairs may be kept (same element numbers).
  void NoteChanges(const std::vector<diagnosis::FabricElement>& elements_before,
                   const std::unordered_map<uint64_t, size_t>& tables_before);
  bool StillRouted(const PairRoute& pair) const;

  int64_t version_ = -1;
  int64_t version_before_ = -1;         // the version pairs may be kept from (-1: none)
  std::vector<bool> table_changed_;     // per element: a switch whose table changed since version_before_
  std::unordered_map<uint64_t, size_t> tables_;  // switch GUID -> hash of its forwarding table
  FabricTopology topology_;
  std::unique_ptr<fabric::RouteTable> table_;
  RouteGraph graph_;  // what TraceInto walks
  std::unordered_map<std::string, std::vector<PortAddress>> addresses_;  // node -> its ports, in port order
  std::unordered_map<fabric::PortRef, fabric::RemoteEnd, PortRefHash> remembered_;  // every cable end seen, while not recabled
  std::map<uint64_t, fabric::FabricNode> remembered_nodes_;       // every node as last seen
  std::vector<diagnosis::FabricElement> elements_;
  std::vector<bool> switch_link_;                                 // per element: a cable between two switches
  std::unordered_map<fabric::PortRef, uint32_t, PortRefHash> cable_;  // either end -> its element
  std::unordered_map<uint64_t, uint32_t> switch_;                 // switch GUID -> its element
  std::unordered_map<uint64_t, std::vector<uint32_t>> routes_;    // (guid, port, lid) key -> elements (RouteOf's)
  std::unordered_map<PortKey, uint32_t, PortKeyHash> source_of_;  // source address -> sources_ index
  std::vector<SourcePairs> sources_;
  std::deque<PairRoute> pair_store_;  // every pair (both directions merged); stable addresses
  std::vector<uint32_t> there_, back_;                            // Current's routes there and back, reused
  uint64_t pass_ = 0;                                             // Resolve() calls
  std::vector<Agent> agents_;
  std::vector<int32_t> pairs_crossing_;
  RouteCoverage coverage_;
};

}  // namespace rdmascope::collector
