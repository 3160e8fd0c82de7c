// A subnet sweep: directed-route discovery (NodeInfo, NodeDescription,
// SwitchInfo, PortInfo) and, pipelined with it, PMA PortCounters and
// PortCountersExtended for every port, all through one MadEngine.
//
// Contract: the sweep never stops at a silent node: a node whose NodeInfo gets
// no answer is listed in `unreachable` with its directed route and the port
// that leads to it; a node that answered NodeInfo but not a later MAD stays in
// `nodes` (with what it gave) and is also listed in `unreachable` with its
// GUID. Links are recorded from both ends. Nodes come out switches first, then
// by GUID; ports by number. Only a transport failure is an error.
#pragma once

#include "common/status.h"
#include "fabric/fabric_model.h"
#include "fabric/mad_engine.h"
#include "fabric/mad_transport.h"

namespace rdmascope::fabric {

struct SweepOptions {
  EngineOptions engine;
  bool counters = true;  // PMA counters for every port as well
  bool routes = false;   // every switch's LinearForwardingTable as well (FabricNode::lft)
};

Result<Fabric> SweepSubnet(MadTransport& transport, const SweepOptions& options);

}  // namespace rdmascope::fabric
