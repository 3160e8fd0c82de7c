// RouteTable: walks the linear forwarding tables (contract in routes.h).
#include "fabric/routes.h"

namespace rdmascope::fabric {
namespace {

const FabricPort* PortOf(const FabricNode& n, int number) {
  for (const FabricPort& p : n.ports)
    if (p.number == number) return &p;
  return nullptr;
}

std::string LidText(uint32_t lid) { return "LID " + std::to_string(lid); }

}  // namespace

std::string PortRefText(const PortRef& p) { return GuidText(p.guid) + ":" + std::to_string(p.port); }

RouteTable::RouteTable(const Fabric& fabric) {
  for (const FabricNode& n : fabric.nodes) {
    by_guid_.emplace(n.guid, &n);
    if (n.type == NodeType::kSwitch) {
      if (n.lid) by_lid_.emplace(n.lid, Where{&n, 0});
      continue;
    }
    for (const FabricPort& p : n.ports)
      if (p.lid) by_lid_.emplace(p.lid, Where{&n, p.number});
  }
}

const FabricNode* RouteTable::Owner(uint32_t lid, int* port) const {
  auto it = by_lid_.find(lid);
  if (it == by_lid_.end()) return nullptr;
  if (port) *port = it->second.port;
  return it->second.node;
}

const FabricNode* RouteTable::Node(uint64_t guid) const {
  auto it = by_guid_.find(guid);
  return it == by_guid_.end() ? nullptr : it->second;
}

Result<Route> RouteTable::Trace(uint32_t src_lid, uint32_t dst_lid) const {
  int src_port = 0;
  const FabricNode* node = Owner(src_lid, &src_port);
  if (!node) return Result<Route>::Error("no port has source " + LidText(src_lid) + " (is the sweep complete?)");
  return Trace(PortRef{node->guid, src_port}, dst_lid);
}

Result<Route> RouteTable::Trace(const PortRef& src, uint32_t dst_lid) const {
  const FabricNode* node = Node(src.guid);
  if (!node) return Result<Route>::Error("no node " + GuidText(src.guid) + " in the sweep");
  auto toward = [dst_lid] { return " toward " + LidText(dst_lid); };  // errors only: a fleet traces a million routes
  Route r;
  r.src = src;
  int in_port = 0;
  int out_port = src.port;  // a CA leaves by its own port
  for (int hops = 0;; ++hops) {
    if (node->type == NodeType::kSwitch) {
      if (hops > kMaxHops)
        return Result<Route>::Error("route from " + PortRefText(src) + toward() + " loops (more than " +
                                    std::to_string(kMaxHops) + " switches)");
      if (node->lft.empty())
        return Result<Route>::Error("switch " + GuidText(node->guid) + " has no forwarding table (sweep without routes?)");
      if (dst_lid >= node->lft.size() || node->lft[dst_lid] == kNoRoute)
        return Result<Route>::Error("switch " + GuidText(node->guid) + " \"" + node->description + "\" has no route to " +
                                    LidText(dst_lid));
      out_port = node->lft[dst_lid];
      r.hops.push_back({node, in_port, out_port});
      if (out_port == 0) {
        if (node->lid != dst_lid)
          return Result<Route>::Error("switch " + GuidText(node->guid) + " takes " + LidText(dst_lid) +
                                      " for its own, but its LID is " + std::to_string(node->lid));
        r.dst = {node->guid, 0};
        return r;
      }
    } else if (hops > 0) {
      const FabricPort* at = PortOf(*node, in_port);
      if (at && at->lid == dst_lid) {
        r.dst = {node->guid, in_port};
        return r;
      }
      return Result<Route>::Error("route from " + PortRefText(src) + toward() + " reaches " + GuidText(node->guid) +
                                  " port " + std::to_string(in_port) + ", not the destination");
    } else {
      const FabricPort* at = PortOf(*node, out_port);
      if (at && at->lid == dst_lid) {
        r.dst = src;
        return r;
      }
    }
    const FabricPort* out = PortOf(*node, out_port);
    if (!out || !out->remote)
      return Result<Route>::Error(GuidText(node->guid) + " port " + std::to_string(out_port) + " has no cable to follow" +
                                  toward());
    const FabricNode* next = Node(out->remote->guid);
    if (!next)
      return Result<Route>::Error(GuidText(node->guid) + " port " + std::to_string(out_port) + " leads to " +
                                  GuidText(out->remote->guid) + ", which the sweep did not reach");
    r.cables.push_back({{node->guid, out_port}, {next->guid, out->remote->port}});
    in_port = out->remote->port;
    node = next;
  }
}

}  // namespace rdmascope::fabric
