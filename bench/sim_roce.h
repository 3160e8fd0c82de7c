// The fleet fault simulator's RoCE mode (--roce with --fat-tree): the same
// planes, but the switches forward by ECMP the collector cannot see.
//
// Contract:
//  - Names: a leaf or spine is named by its description ("leaf03-p0",
//    "spine01-p0"). A leaf is a switch with a host cabled to it; its
//    uplinks are its ports cabled to a switch.
//  - TopologyJson: the collector's --topology file (schemas/topology.schema.json):
//    every leaf of every plane with its hosts ({"node", "rail"}: the rail
//    the NIC serves) and its uplinks ({"spine"}, with "port" only when one
//    spine has several of the leaf's uplinks), and every spine.
//  - Direction(plane, from, to): what one direction of a path crosses. On
//    one leaf: that leaf. Across leaves: an uplink of the source leaf picked
//    by a stable hash of the (from, to) host pair (ECMP: the same pair takes
//    the same uplink every time), the spine at its other end, and that
//    spine's cable down to the destination leaf.
//  - Expect: a fault's expected verdict as the diagnosis with the topology
//    file names it: a leaf-spine uplink -> switch LEAF (its kind), the
//    uplink among the verdict's candidates; a spine -> switch "spines"
//    ("spines:FIRST..LAST" of its plane's spines when there are several
//    planes; the spine's name when its plane has one spine); a leaf -> switch LEAF (a
//    group verdict on a leaf is named so); a group "leaf:0x<GUID>" -> switch
//    LEAF. Other faults keep theirs.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/sim_faults.h"
#include "bench/sim_topology.h"

namespace rdmascope::bench {

class RoceFabric {
 public:
  struct Uplink {
    int port = 0;
    uint64_t spine = 0;
    int spine_port = 0;
  };
  struct Crossing {
    std::vector<std::pair<fabric::PortRef, fabric::PortRef>> cables;
    std::vector<uint64_t> switches;
  };

  explicit RoceFabric(const SimTopology& topo);

  nlohmann::json TopologyJson() const;
  Crossing Direction(int plane, size_t from_host, const SimNic& from, size_t to_host, const SimNic& to) const;
  void Expect(Fault* f) const;
  const std::string& Name(int plane, uint64_t guid) const;

 private:
  struct Plane {
    std::vector<uint64_t> leaves, spines;  // in the fabric's order
    std::unordered_map<uint64_t, std::vector<Uplink>> uplinks;  // leaf -> its uplinks
    std::unordered_map<uint64_t, std::string> names;
  };
  const SimTopology& topo_;
  std::vector<Plane> planes_;
};

}  // namespace rdmascope::bench
