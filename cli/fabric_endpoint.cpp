// ResolveEndpoint: a LID, GUID or node description to one port (contract in
// fabric_endpoint.h).
#include "cli/fabric_endpoint.h"

#include <cctype>
#include <cstdlib>
#include <vector>

namespace rdmascope::cli {
namespace {

using namespace rdmascope::fabric;

constexpr uint32_t kMaxUnicastLid = 0xbfff;

bool AllDigits(const std::string& s) {
  if (s.empty() || s.size() > 6) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// A node as a whole: a switch itself, a CA by its first active port.
Result<Endpoint> WholeNode(const FabricNode& n, const std::string& text) {
  if (n.type == NodeType::kSwitch) {
    if (n.lid == 0) return Result<Endpoint>::Error("switch " + GuidText(n.guid) + " (" + text + ") has no LID");
    return Endpoint{&n, 0, n.lid};
  }
  const FabricPort* pick = nullptr;
  for (const FabricPort& p : n.ports) {
    if (p.lid == 0) continue;
    if (p.state == 4) return Endpoint{&n, p.number, p.lid};
    if (!pick) pick = &p;
  }
  if (pick) return Endpoint{&n, pick->number, pick->lid};
  return Result<Endpoint>::Error(std::string(NodeTypeName(n.type)) + " " + GuidText(n.guid) + " (" + text +
                                 ") has no port with a LID: is a subnet manager running?");
}

}  // namespace

Result<Endpoint> ResolveEndpoint(const Fabric& f, const RouteTable& routes, const std::string& text) {
  if (AllDigits(text)) {
    unsigned long lid = std::strtoul(text.c_str(), nullptr, 10);
    if (lid == 0 || lid > kMaxUnicastLid)
      return Result<Endpoint>::Error("LID " + text + " is not a unicast LID (1..49151)");
    int port = 0;
    const FabricNode* n = routes.Owner(static_cast<uint32_t>(lid), &port);
    if (!n) return Result<Endpoint>::Error("no port in the sweep has LID " + text);
    return Endpoint{n, port, static_cast<uint32_t>(lid)};
  }
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) {
    uint64_t guid = 0;
    if (!ParseGuid(text, &guid)) return Result<Endpoint>::Error(text + " is not a GUID (0x and up to 16 hex digits)");
    if (const FabricNode* n = routes.Node(guid)) return WholeNode(*n, text);
    for (const FabricNode& n : f.nodes)
      for (const FabricPort& p : n.ports)
        if (p.guid == guid) {
          if (n.type == NodeType::kSwitch) return WholeNode(n, text);
          if (p.lid == 0)
            return Result<Endpoint>::Error("port " + text + " (" + GuidText(n.guid) + " port " +
                                           std::to_string(p.number) + ") has no LID");
          return Endpoint{&n, p.number, p.lid};
        }
    return Result<Endpoint>::Error("no node or port in the sweep has GUID " + GuidText(guid));
  }
  std::vector<const FabricNode*> named;
  for (const FabricNode& n : f.nodes)
    if (n.description == text) named.push_back(&n);
  if (named.empty())
    return Result<Endpoint>::Error("no node in the sweep is described \"" + text +
                                   "\" (exact match; or give a LID or a 0x GUID)");
  if (named.size() > 1) {
    std::string guids;
    for (const FabricNode* n : named) guids += (guids.empty() ? "" : ", ") + GuidText(n->guid);
    return Result<Endpoint>::Error(std::to_string(named.size()) + " nodes are described \"" + text +
                                   "\" (" + guids + "): give a GUID or a LID");
  }
  return WholeNode(*named[0], "\"" + text + "\"");
}

}  // namespace rdmascope::cli
