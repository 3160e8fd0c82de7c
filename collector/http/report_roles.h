// What a report may say, given the token it came with (token roles).
//
// Contract (CheckReportRoles, on a report ValidateReport accepted):
//  - The fleet token (`* TOKEN`) may report anything for any node.
//  - Any other token reports only as its own node (403 otherwise).
//  - A report carrying a fabric sweep (a non-null "fabric" part) needs the
//    sweep role (`sweep NODE TOKEN`); a node token's sweep is refused (403).
//  - labels.control_host, which the collector hands to other agents as the
//    address to probe, must be an address of the reporting node: its node
//    name, or a numeric IPv4/IPv6 address equal to the peer address the
//    report came from or to a GID of the report's own inventory (an
//    IPv4-mapped GID ::ffff:a.b.c.d is the address a.b.c.d). Host names other
//    than the node name are refused (the collector resolves no names on the
//    ingest path); a foreign address is refused (403). Addresses compare as
//    16-byte IPv6 (IPv4 as IPv4-mapped), so spellings do not matter.
//  - Refusals name the rule and the token line that would allow it. The
//    caller stores nothing of a refused report.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "collector/http/api_auth.h"

namespace rdmascope::collector {

struct RoleRefusal {
  int status = 403;
  std::string error;   // short: what was refused
  std::string detail;  // why, and what token line allows it
};

std::optional<RoleRefusal> CheckReportRoles(const nlohmann::json& report, const TokenGrant& grant,
                                            const std::string& peer_address);

}  // namespace rdmascope::collector
