// The switch tier of a fabric whose forwarding the collector cannot see
// (RoCE: ECMP in the switches), as the operator writes it in a topology file
// (`rdmascope-collector --topology FILE`, schemas/topology.schema.json):
// which leaf each node (or each of its rails or devices) hangs on, and each
// leaf's uplinks to the spines.
//
// Contract:
//  - The file is one JSON object {"leaves": [...], "spines": [...]}. A leaf
//    is {"name", "hosts": [...], "uplinks": [...]}; a host entry is
//    {"node"} (every rail of the node), {"node", "rail"} (the rail as the
//    agent names it) or {"node", "device"} (an RDMA device); "node" may be
//    a range, "PREFIX[FIRST-LAST]SUFFIX" ("node[01-16]": node01 .. node16,
//    FIRST's digits set the width), so a rack is one line; an uplink is
//    {"spine", "port"?} (port: the leaf's port, when a leaf has several
//    uplinks to one spine). A spine is {"name"}. Unknown keys are errors (a
//    misspelt key must not silently change the diagnosis).
//  - Names are non-empty; leaf and spine names are unique across both
//    lists; an uplink names a listed spine; one (node, rail) or (node,
//    device) is on one leaf only, and a node named without rail or device is
//    named so on one leaf only.
//  - Errors say the file, the JSON pointer of the offending value and what
//    was expected there ("topology.json: /leaves/2/uplinks/0/spine: names no
//    spine of /spines (expected one of spine-1, spine-2)").
//  - LeafOf looks a node's end up: (node, device) first, then (node, rail),
//    then the node alone; nullptr when the file does not place it.
//  - UplinkName is "LEAF<->SPINE", or "LEAF/PORT<->SPINE" with a port.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace rdmascope::collector {

struct RoceUplink {
  std::string spine;
  int64_t port = 0;  // the leaf's port; 0: not given
};

struct RoceLeaf {
  std::string name;
  std::vector<RoceUplink> uplinks;
};

struct RoceTopology {
  std::vector<RoceLeaf> leaves;
  std::vector<std::string> spines;
  // Where each host end hangs: leaf index into leaves.
  std::map<std::pair<std::string, std::string>, size_t> by_device;  // (node, device)
  std::map<std::pair<std::string, std::string>, size_t> by_rail;    // (node, rail)
  std::map<std::string, size_t> by_node;                            // (node): every rail
  std::string source;  // the file it came from ("" none)

  bool empty() const { return leaves.empty(); }
  // The leaf a node's end hangs on, or nullptr.
  const RoceLeaf* LeafOf(const std::string& node, const std::string& rail, const std::string& device) const;
  // The leaf of the node's first entry in the file (its node-level group), or nullptr.
  const RoceLeaf* FirstLeafOf(const std::string& node) const;
  std::map<std::string, size_t> first_leaf;  // node -> leaf index of its first entry
};

std::string UplinkName(const std::string& leaf, const RoceUplink& u);

// `origin` names the text in errors (the file's path).
Result<RoceTopology> ParseRoceTopology(const std::string& text, const std::string& origin);
// Reads and parses the file; errors name the path.
Result<RoceTopology> LoadRoceTopologyFile(const std::string& path);

}  // namespace rdmascope::collector
