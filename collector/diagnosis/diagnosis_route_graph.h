// The topology compiled for tracing many routes: the walk of
// fabric::RouteTable::Trace (contract in fabric/routes.h) over flat arrays
// indexed by node and port number, appending element numbers instead of
// building a Route.
//
// Contract:
//  - Build(fabric, switch_element, cable_element) copies what a walk reads
//    (every node's ports and cables, every switch's forwarding table) and
//    numbers switches and cables with the two functions (kNone: no element).
//    The fabric may be dropped afterwards. Nodes and ports repeated in the
//    fabric count once, the first, as in RouteTable. Ports numbered outside
//    0..255, which no InfiniBand node has and ingest refuses, are left out.
//  - TraceInto(guid, port, to_lid, ids) walks from that port toward to_lid
//    and appends the elements of the switches crossed, in order, then of the
//    cables crossed, in order (a cable without an element is skipped). It
//    returns false, appending nothing, exactly where RouteTable::Trace
//    returns an error on a fabric of valid port numbers (unknown node, a
//    switch without a table or an entry, a port without a cable or leading
//    out of the fabric, a loop, a walk ending elsewhere than to_lid).
//  - Thread-compatible: const methods may run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "fabric/fabric_model.h"
#include "fabric/routes.h"

namespace rdmascope::collector {

class RouteGraph {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  void Build(const fabric::Fabric& fabric, const std::function<uint32_t(uint64_t guid)>& switch_element,
             const std::function<uint32_t(const fabric::PortRef& end)>& cable_element);
  bool TraceInto(uint64_t guid, int port, uint32_t to_lid, std::vector<uint32_t>* ids) const;

 private:
  struct Node {
    bool is_switch = false;
    uint32_t lid = 0;               // a switch's (port 0)
    uint32_t element = kNone;       // a switch's element
    uint32_t ports = 0, port_count = 0;  // its ports: ports_[ports + number], number < port_count
    uint32_t lft = 0, lft_size = 0;      // its table: lfts_[lft + lid], lid < lft_size
  };
  struct Port {
    bool present = false;
    uint32_t lid = 0;
    uint32_t next = kNone;  // the node at the other end of its cable
    int32_t next_port = 0;
    uint32_t cable = kNone; // the cable's element
  };
  const Port* PortOf(const Node& n, int number) const {
    return number >= 0 && static_cast<uint32_t>(number) < n.port_count && ports_[n.ports + number].present
               ? &ports_[n.ports + number]
               : nullptr;
  }
  std::vector<Node> nodes_;
  std::vector<Port> ports_;
  std::vector<uint8_t> lfts_;
  std::unordered_map<uint64_t, uint32_t> index_;  // GUID -> nodes_ index
};

}  // namespace rdmascope::collector
