// Forwarding tables and traced paths as text and JSON (contract in
// fabric_routes_output.h).
#include "cli/fabric_routes_output.h"

#include <cstdio>
#include <string>

namespace rdmascope::cli {
namespace {

using namespace rdmascope::fabric;

const FabricPort* PortOf(const FabricNode& n, int number) {
  for (const FabricPort& p : n.ports)
    if (p.number == number) return &p;
  return nullptr;
}

// The GUID a port answers to: its own when known, else its node's.
uint64_t PortGuid(const FabricNode& n, int port) {
  const FabricPort* p = port ? PortOf(n, port) : (n.ports.empty() ? nullptr : &n.ports[0]);
  return p && p->guid ? p->guid : n.guid;
}

std::string Owner(const RouteTable& routes, uint32_t lid) {
  int port = 0;
  const FabricNode* n = routes.Owner(lid, &port);
  if (!n) return "(no port in the sweep has this LID)";
  return std::string(NodeTypeName(n->type)) + " " + GuidText(PortGuid(*n, port)) +
         (n->type == NodeType::kSwitch ? "" : " port " + std::to_string(port)) + " \"" + n->description + "\"";
}

nlohmann::json EndJson(const Endpoint& e) {
  return {{"guid", GuidText(e.node->guid)}, {"port", e.port}, {"lid", e.lid},
          {"type", NodeTypeName(e.node->type)}, {"description", e.node->description}};
}

std::string EndText(const Endpoint& e) {
  return std::string(e.node->type == NodeType::kSwitch ? "switch" : "ca") + " {" + GuidText(e.node->guid) +
         "} portnum " + std::to_string(e.port) + " lid " + std::to_string(e.lid) + " \"" + e.node->description +
         "\"";
}

}  // namespace

void PrintForwardingTables(const Fabric& f, const RouteTable& routes) {
  for (const FabricNode& n : f.nodes) {
    if (n.type != NodeType::kSwitch) continue;
    if (n.lft.empty()) {
      std::printf("Switch %s \"%s\" lid %u: no forwarding table read\n\n", GuidText(n.guid).c_str(),
                  n.description.c_str(), n.lid);
      continue;
    }
    std::printf("Unicast LIDs [0-%zu] of switch %s \"%s\" lid %u:\n", n.lft.size() - 1, GuidText(n.guid).c_str(),
                n.description.c_str(), n.lid);
    std::printf("    LID  Out  Destination\n");
    int routed = 0;
    for (size_t lid = 1; lid < n.lft.size(); ++lid) {
      if (n.lft[lid] == kNoRoute) continue;
      ++routed;
      std::printf("  %5zu  %3u  %s\n", lid, n.lft[lid], Owner(routes, static_cast<uint32_t>(lid)).c_str());
    }
    std::printf("  %d LIDs routed\n\n", routed);
  }
}

nlohmann::json PathToJson(const Route& r, const Endpoint& src, const Endpoint& dst) {
  nlohmann::json hops = nlohmann::json::array();
  for (const Hop& h : r.hops)
    hops.push_back({{"guid", GuidText(h.node->guid)}, {"description", h.node->description}, {"lid", h.node->lid},
                    {"in_port", h.in_port}, {"out_port", h.out_port}});
  nlohmann::json cables = nlohmann::json::array();
  for (const Cable& c : r.cables)
    cables.push_back({{"from", {{"guid", GuidText(c.from.guid)}, {"port", c.from.port}}},
                      {"to", {{"guid", GuidText(c.to.guid)}, {"port", c.to.port}}}});
  return {{"src", EndJson(src)}, {"dst", EndJson(dst)}, {"hops", hops}, {"cables", cables}};
}

void PrintPath(const Route& r, const Endpoint& src, const Endpoint& dst, const RouteTable& routes) {
  std::printf("From %s\n", EndText(src).c_str());
  for (const Cable& c : r.cables) {
    const FabricNode* to = routes.Node(c.to.guid);
    bool sw = to->type == NodeType::kSwitch;
    uint32_t lid = sw ? to->lid : 0;
    if (!sw)
      if (const FabricPort* p = PortOf(*to, c.to.port)) lid = p->lid;
    std::printf("[%d] -> %s port {%s}[%d] lid %u \"%s\"\n", c.from.port, sw ? "switch" : "ca",
                GuidText(PortGuid(*to, c.to.port)).c_str(), c.to.port, lid, to->description.c_str());
  }
  std::printf("To %s\n", EndText(dst).c_str());
  std::printf("%zu switch hop(s), %zu cable(s)\n", r.hops.size(), r.cables.size());
}

}  // namespace rdmascope::cli
