// The path a packet takes through the subnet, from the switches' linear
// forwarding tables (FabricNode::lft): hop by hop, as the switches forward it.
//
// Contract:
//  - RouteTable indexes one Fabric (which must outlive it): every port's LID
//    (CA ports by their own LID, a switch by its port 0 LID). LMC is taken as
//    0: a LID is a port's base LID.
//  - Trace(src, dst) starts at the port whose LID is src and follows cables
//    (FabricPort::remote) and, at each switch, the egress port lft[dst]. It
//    ends at the CA port whose LID is dst, or at the switch whose LID is dst
//    (its table says port 0). Errors name what stopped the walk: an unknown
//    LID, a switch without a table or without an entry for dst (kNoRoute), a
//    port without a cable, a loop (more than kMaxHops switches).
//  - A Fabric holding several subnets (one sweep per rail) repeats LIDs: the
//    LID index keeps the first owner, so trace such fabrics with
//    Trace(PortRef, dst): the source port's GUID names the subnet, and the
//    walk only follows cables, so it stays in it.
//  - A Route lists the switches crossed (entry and exit port) and the cables
//    crossed, each cable once in the direction travelled.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "fabric/fabric_model.h"

namespace rdmascope::fabric {

// One end of a cable: a node and one of its ports.
struct PortRef {
  uint64_t guid = 0;
  int port = 0;
  bool operator==(const PortRef& o) const { return guid == o.guid && port == o.port; }
  bool operator<(const PortRef& o) const { return guid != o.guid ? guid < o.guid : port < o.port; }
};

// A cable crossed from `from` to `to`.
struct Cable {
  PortRef from, to;
};

struct Hop {
  const FabricNode* node = nullptr;  // a switch on the way
  int in_port = 0, out_port = 0;
};

struct Route {
  PortRef src, dst;          // the end ports (a switch end: port 0)
  std::vector<Hop> hops;     // the switches, in order
  std::vector<Cable> cables; // every cable crossed, in order
};

class RouteTable {
 public:
  static constexpr int kMaxHops = 64;
  explicit RouteTable(const Fabric& fabric);
  Result<Route> Trace(uint32_t src_lid, uint32_t dst_lid) const;
  Result<Route> Trace(const PortRef& src, uint32_t dst_lid) const;
  // The node and port that own a LID (port 0 for a switch); null when none.
  const FabricNode* Owner(uint32_t lid, int* port = nullptr) const;
  const FabricNode* Node(uint64_t guid) const;

 private:
  struct Where {
    const FabricNode* node;
    int port;
  };
  std::unordered_map<uint32_t, Where> by_lid_;
  std::unordered_map<uint64_t, const FabricNode*> by_guid_;
};

// "0x0002c9...:3" for a port end.
std::string PortRefText(const PortRef& p);

}  // namespace rdmascope::fabric
