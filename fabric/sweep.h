// A subnet sweep: directed-route discovery (NodeInfo, NodeDescription,
// SwitchInfo, PortInfo) and, pipelined with it, PMA PortCounters and
// PortCountersExtended for every port, all through one MadEngine.
//
// Counters follow each node's PMA ClassPortInfo (asked once per node,
// before its first port's counters): PortCountersExtended only where the
// PMA has it (its 64-bit data counters replace the 32-bit ones), its 64-bit
// error counters and XmitWait where it has those too (they replace the
// 8/16-bit saturating ones), and no port_xmit_wait where the PMA does not
// count XmitWait. A PMA whose ClassPortInfo answers with an error status is
// asked both attributes; one that gives no answer at all is silent, and its
// counters fail unsent (the engine's silent target).
//
// Contract: the sweep never stops at a silent node: a node whose NodeInfo gets
// no answer is listed in `unreachable` with its directed route and the port
// that leads to it; a node that answered NodeInfo but not a later MAD stays in
// `nodes` (with what it gave) and is also listed in `unreachable` with its
// GUID. Links are recorded from both ends. Nodes come out switches first, then
// by GUID; ports by number. Only a transport failure is an error.
//
// With `routes`, every switch's LinearForwardingTable is read too: its
// SwitchInfo's LinearFDBTop, then the blocks (64 LIDs each) up to it, by
// directed route through the same engine, into FabricNode::lft. A switch whose
// table could not be read whole keeps lft empty and is listed in `unreachable`
// with its GUID and the MAD that failed ("LinearForwardingTable block 2 via DR
// 0,1: no answer after 3 tries"), unless an earlier MAD of it already failed
// (a node is listed once, with its first failure). A switch without a linear
// table (LinearFDBCap 0) keeps lft empty and is not listed.
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
