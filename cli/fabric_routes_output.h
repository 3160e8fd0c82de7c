// What `rdmactl fabric discover --routes` and `rdmactl fabric path` print.
//
// Contract:
//  - PrintForwardingTables: one block per switch, its LinearForwardingTable
//    as the standard route dump prints it: every routed LID (entries with no
//    port are left out), the egress port, and what owns that LID (type, port
//    GUID, description); a switch without a table says so.
//  - PathToJson / PrintPath: a traced route. JSON {"src":{...},"dst":{...},
//    "hops":[{"guid","description","lid","in_port","out_port"}],
//    "cables":[{"from":{"guid","port"},"to":{"guid","port"}}]}, ends with
//    guid, port, lid, type and description; text: "From ...", one line per
//    cable crossed with the port it leaves by and the port GUID and number it
//    enters, "To ...".
#pragma once

#include <nlohmann/json.hpp>

#include "cli/fabric_endpoint.h"
#include "fabric/fabric_model.h"
#include "fabric/routes.h"

namespace rdmascope::cli {

void PrintForwardingTables(const fabric::Fabric& f, const fabric::RouteTable& routes);
nlohmann::json PathToJson(const fabric::Route& r, const Endpoint& src, const Endpoint& dst);
void PrintPath(const fabric::Route& r, const Endpoint& src, const Endpoint& dst, const fabric::RouteTable& routes);

}  // namespace rdmascope::cli
