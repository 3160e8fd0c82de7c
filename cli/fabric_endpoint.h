// Where `rdmactl fabric path` starts and ends: one port of the swept subnet,
// named the way people name it.
//
// Contract: ResolveEndpoint reads `text` as
//  - a LID when it is a decimal number (the port, or switch, owning it);
//  - a GUID when it starts with 0x: a node GUID (a switch: port 0; a CA or
//    router: its first ACTIVE port with a LID, else its first port with a
//    LID) or a port GUID (that port; a switch's: port 0);
//  - otherwise a node description, matched exactly, then as for a node GUID.
// The error names what was looked for and why nothing (or more than one node:
// their GUIDs) matched.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "fabric/fabric_model.h"
#include "fabric/routes.h"

namespace rdmascope::cli {

struct Endpoint {
  const fabric::FabricNode* node = nullptr;
  int port = 0;      // 0: a switch itself
  uint32_t lid = 0;  // the LID a route to it is looked up by
};

Result<Endpoint> ResolveEndpoint(const fabric::Fabric& f, const fabric::RouteTable& routes, const std::string& text);

}  // namespace rdmascope::cli
