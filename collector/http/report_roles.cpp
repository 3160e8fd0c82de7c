// CheckReportRoles: token roles over a validated report (contract in
// report_roles.h).
#include "collector/http/report_roles.h"

#include <arpa/inet.h>

#include <array>
#include <cstring>
#include <vector>

#include "collector/core/json_get.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using Address = std::array<unsigned char, 16>;

// A numeric IPv4 or IPv6 address as 16 bytes (IPv4 as ::ffff:a.b.c.d);
// nullopt for anything else (host names, empty, garbage).
std::optional<Address> ParseAddress(const std::string& text) {
  Address a{};
  std::string t = text;
  if (t.size() > 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
  if (t.size() > 64) return std::nullopt;
  if (inet_pton(AF_INET6, t.c_str(), a.data()) == 1) return a;
  unsigned char v4[4];
  if (inet_pton(AF_INET, t.c_str(), v4) != 1) return std::nullopt;
  a.fill(0);
  a[10] = a[11] = 0xff;
  std::memcpy(a.data() + 12, v4, 4);
  return a;
}

// The GIDs of the report's own inventory, as addresses.
std::vector<Address> InventoryAddresses(const json& report) {
  std::vector<Address> out;
  const json* inv = Field(report, "inventory");
  const json* devices = inv ? Field(*inv, "devices") : nullptr;
  if (!devices || !devices->is_array()) return out;
  for (const json& d : *devices) {
    const json* ports = Field(d, "ports");
    if (!ports || !ports->is_array()) continue;
    for (const json& p : *ports) {
      const json* gids = Field(p, "gids");
      if (!gids || !gids->is_array()) continue;
      for (const json& g : *gids)
        if (auto text = OptText(g, "gid"))
          if (auto a = ParseAddress(*text)) out.push_back(*a);
    }
  }
  return out;
}

std::optional<RoleRefusal> CheckControlHost(const json& report, const std::string& node, const std::string& peer) {
  const json* labels = Field(report, "labels");
  const json* host_json = labels ? Field(*labels, "control_host") : nullptr;
  if (!host_json || !host_json->is_string()) return std::nullopt;
  const std::string host = host_json->get<std::string>();
  if (host == node) return std::nullopt;
  const std::string rule = "labels.control_host must be the node's name or one of its addresses (the address the "
                           "report comes from, " + peer.substr(0, 64) + ", or a GID of its inventory); set "
                           "control_host on the agent to one of them (only the fleet token `* TOKEN` may name "
                           "other hosts)";
  const std::string refused = "control_host not an address of this node";
  auto address = ParseAddress(host);
  if (!address)
    return RoleRefusal{403, refused, "\"" + host.substr(0, 128) + "\" is a host name, not the node's; " + rule};
  auto from = ParseAddress(peer);
  if (from && *from == *address) return std::nullopt;
  for (const Address& a : InventoryAddresses(report))
    if (a == *address) return std::nullopt;
  return RoleRefusal{403, refused, host.substr(0, 128) + " is foreign; " + rule};
}

}  // namespace

std::optional<RoleRefusal> CheckReportRoles(const json& report, const TokenGrant& grant,
                                            const std::string& peer_address) {
  if (grant.Fleet()) return std::nullopt;
  const json* node_json = Field(report, "node");
  const std::string node = node_json && node_json->is_string() ? node_json->get<std::string>() : std::string();
  if (grant.node != node)
    return RoleRefusal{403, "token not valid for this node",
                       "this token may report only as node " + grant.node +
                           " (token file lines: NODE TOKEN, sweep NODE TOKEN, or * TOKEN for any node)"};
  if (Field(report, "fabric") && !grant.MaySweep())
    return RoleRefusal{403, "token may not post a fabric sweep",
                       "a fabric sweep needs the sweep role: give node " + node + " a line `sweep " + node +
                           " TOKEN` in the collector's token file (or the fleet token `* TOKEN`), or turn "
                           "fabric_sweep_interval off on its agent"};
  return CheckControlHost(report, node, peer_address);
}

}  // namespace rdmascope::collector
