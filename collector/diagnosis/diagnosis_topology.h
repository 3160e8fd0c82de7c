// The topology file's word on the diagnosis's input (the adapter between
// collector/readmodel/roce_topology.h and the pure vote).
//
// Contract (ApplyTopology; nothing happens with an empty topology):
//  - Every path end the file places (LeafOf: node and device, node and
//    rail, the node) is grouped by its leaf's name: the file overrides both
//    the group label and the leaf from InfiniBand neighbours, for the ends
//    it names. Both are the operator's word, but the file is the exact one
//    (per rail, with the uplinks the switch-tier rule needs); ends it does
//    not name keep the label / neighbour rule. A node's own group
//    (NodeFacts::group: a host's standing is measured against it) is the
//    leaf of its first entry in the file.
//  - A port with no switch from the fabric (no IB neighbour: RoCE) gets its
//    leaf's name as its switch (PortFacts::switch_guid and _description),
//    so the ports of a leaf that went down are one switch verdict (rule 1);
//    the port's rail is the one its paths name.
//  - Input::tier_leaves gets every leaf with its uplinks ("leaf<->spine",
//    UplinkName) and the spine of each (rule 3b of diagnosis.h).
#pragma once

#include "collector/diagnosis/diagnosis.h"
#include "collector/readmodel/roce_topology.h"

namespace rdmascope::collector {

void ApplyTopology(const RoceTopology& topology, diagnosis::Input* in);

}  // namespace rdmascope::collector
