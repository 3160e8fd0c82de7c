// The InfiniBand topology as the store keeps it, for tracing the fabric path
// of a probed pair (fabric/routes.h), and where each agent's port sits in it.
//
// Contract:
//  - Topology() reads, in one read transaction on a read-only connection of
//    its own (never under the writer's lock, stopped at the query deadline),
//    the nodes sweeps saw (fabric_nodes with ports or a forwarding table;
//    switches known only from agents' neighbour lookups are left out), their
//    ports (number, LID, state, physical state), each port's remote end only
//    while the link between them is not gone, and every switch's newest
//    forwarding table (FabricNode::lft; empty when none was stored). Width,
//    speed, counters, directed routes and unreachable nodes are not filled.
//    Nodes come in GUID order, each node's ports in port order.
//    The Fabric may hold several subnets (one per rail): trace it with
//    RouteTable::Trace(PortRef, dst_lid).
//  - `version` is the store's fabric_topology_version as of the same read:
//    it changes in the transaction of every sweep (or retention step) that
//    changes a node's type or LID, a port's LID, state or remote end, a link's
//    presence or a forwarding table; routes traced from a topology stay valid
//    while Version() returns the same number. Version() reads only that.
//  - PortAddresses() maps each agent's InfiniBand port (node, device, port),
//    as its newest inventory stored it (ports table), to its place in the
//    fabric: the device's node GUID (the HCA's NodeGUID, as sweeps name it),
//    the port number and its LID (0: none assigned). Ports whose device has
//    no node GUID (RoCE, or none reported) are left out. `node`: one agent
//    node only. Does not change the topology version.
//  - Errors name what could not be read (table and step).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "collector/store/writer_db.h"
#include "fabric/fabric_model.h"

namespace rdmascope::collector {

struct FabricTopology {
  fabric::Fabric fabric;
  int64_t version = 0;
};

// An agent's port, as its reports name it.
struct AgentPort {
  std::string node, device;
  int port = 0;
  bool operator<(const AgentPort& o) const {
    return node != o.node ? node < o.node : device != o.device ? device < o.device : port < o.port;
  }
  bool operator==(const AgentPort& o) const { return node == o.node && device == o.device && port == o.port; }
};

// Where an agent's port is in the fabric.
struct FabricAddress {
  uint64_t node_guid = 0;  // the HCA's NodeGUID
  int port = 0;
  uint32_t lid = 0;        // 0: none assigned
};

class FabricTopologyReader {
 public:
  explicit FabricTopologyReader(WriterDb& w) : w_(w) {}

  Result<FabricTopology> Topology();
  Result<int64_t> Version();
  Result<std::map<AgentPort, FabricAddress>> PortAddresses(const std::optional<std::string>& node = std::nullopt);

 private:
  WriterDb& w_;
};

// "0002:c903:0001:2345" (sysfs, the inventory's form) or "0x0002c90300012345"
// (sweeps' form) as a number; false on anything else.
bool ParseAnyGuid(std::string_view text, uint64_t* guid);

}  // namespace rdmascope::collector
