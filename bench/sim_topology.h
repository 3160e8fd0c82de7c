// The fleet fault simulator's topology: hosts, their NICs (one per rail) and
// one InfiniBand plane per rail, each a Fabric with forwarding tables and the
// RouteTable that walks them.
//
// Contract:
//  - GenerateFatTree(leaves, hosts_per_leaf, spines, rails): a rail-optimised
//    two-level fat tree per rail (plane). Hosts are "node0001".. (1-based,
//    4 digits at least), host i sits on leaf i / hosts_per_leaf of every
//    plane; NIC r is "mlx5_r", port 1, on plane r, rail "r". Leaf ports
//    1..H go down to hosts, H+1..H+S up to spines 0..S-1; spine port l+1 goes
//    to leaf l. LIDs per plane: switches 1.., then hosts. Routes are min-hop
//    up/down: a leaf sends a LID on its own leaf down, any other LID up to
//    spine (LID % S) (so destinations spread over the spines); a spine sends
//    it down to the destination's leaf; every LID of the plane is routed.
//    With a host count below L x H the last leaves hold fewer hosts.
//  - LoadTopologyJson(text): the JSON of `rdmactl fabric discover --routes
//    --json` (one document, or an array of them: one plane each). A CA is a
//    host NIC: the host is the first word of its NodeDescription, the device
//    the second word (else "mlx5_<k>" by order); its first port with a cable
//    is the NIC's port. A host's NICs, ordered by plane then device, are its
//    rails "0", "1", ...
//  - GUIDs of generated planes are stable functions of (plane, role, index).
//  - Errors name what is missing (a document without nodes, a CA without a
//    cabled port, a LID the tables do not route).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "fabric/fabric_model.h"
#include "fabric/routes.h"

namespace rdmascope::bench {

struct SimNic {
  std::string device;   // "mlx5_0"
  std::string rail;     // "0"
  int plane = 0;
  uint64_t guid = 0;    // the CA's node GUID
  int port = 1;
  uint32_t lid = 0;
  uint64_t leaf_guid = 0;  // the switch at the other end of the cable
  int leaf_port = 0;
};

struct SimHost {
  std::string name;
  std::vector<SimNic> nics;  // one per rail
};

struct SimPlane {
  std::unique_ptr<fabric::Fabric> fabric;
  std::unique_ptr<fabric::RouteTable> routes;
};

struct SimTopology {
  std::vector<SimHost> hosts;
  std::vector<SimPlane> planes;
  std::map<std::string, size_t> host_index;  // name -> index in hosts
  int rails = 0;                             // the most NICs of any host
  // Builds host_index and the route tables (call after filling hosts/planes).
  void Index();
};

// hosts > 0: only the first `hosts` hosts (the last leaf partly filled).
Result<SimTopology> GenerateFatTree(int leaves, int hosts_per_leaf, int spines, int rails, int hosts = 0);
Result<SimTopology> LoadTopologyJson(const std::string& text);
// "L,H,S[,R]" for --fat-tree.
Result<SimTopology> FatTreeFromSpec(const std::string& spec, int hosts = 0);

// The simulator's stable 64-bit mixer (splitmix64's finaliser): the same
// input gives the same output on every machine, so a seed replays a run.
uint64_t Mix(uint64_t x);

}  // namespace rdmascope::bench
