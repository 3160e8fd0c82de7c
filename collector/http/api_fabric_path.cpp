// GET /api/v1/fabric/path?src=END&dst=END: the path a packet takes from one
// port to another through the stored topology and the switches' forwarding
// tables (FabricTopologyReader, fabric/routes.h).
//
// END is one of
//   NODE[/DEVICE[/PORT]]  an agent's port, as its inventory names it (without
//                         DEVICE or PORT: each of the node's InfiniBand ports
//                         is tried, in order, until one has a path)
//   lid:N                 the port (or switch) with LID N
//   0xGUID[:PORT]         a node of the sweep (a CA's port, or a switch)
// Answers 200 {"version", "src", "dst", "hops":[{guid, description, in_port,
// out_port}], "cables":[{from:{guid, port, description}, to:{...}}]};
// 400 naming the parameter for a missing or malformed END; 404 naming what is
// missing: no sweep stored, an unknown node, port, LID or GUID, a port that
// no sweep reached, or no route (what stopped the walk: a switch without a
// table or without an entry, a port without a cable).
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "collector/http/api_params.h"
#include "collector/http/api_server.h"
#include "fabric/routes.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using fabric::GuidText;
using fabric::PortRef;

// One end as the request names it.
struct EndSpec {
  enum class Kind { kAgent, kLid, kGuid } kind = Kind::kAgent;
  std::string node, device;
  std::optional<int> port;
  uint32_t lid = 0;
  uint64_t guid = 0;
};

// A port the end may be: where to start or what to reach.
struct Candidate {
  PortRef ref;
  uint32_t lid = 0;
  std::string node, device;  // an agent's port
  bool any_owner = false;    // by LID: whichever port of that LID the walk reaches (LIDs repeat per subnet)
};

bool NameText(const std::string& s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

std::optional<int64_t> Number(const std::string& s, int64_t lo, int64_t hi) {
  if (s.empty() || s.size() > 6) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  const int64_t v = std::stoll(s);
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

// The end in `text`, or the problem with it.
std::optional<EndSpec> ParseEnd(const std::string& text, std::string* problem) {
  EndSpec e;
  if (text.rfind("lid:", 0) == 0) {
    auto lid = Number(text.substr(4), 1, 0xbfff);
    if (!lid) {
      *problem = "expected lid:N with N a unicast LID 1..49151";
      return std::nullopt;
    }
    e.kind = EndSpec::Kind::kLid;
    e.lid = static_cast<uint32_t>(*lid);
    return e;
  }
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) {
    const size_t colon = text.find(':');
    const std::string guid = text.substr(0, colon);
    if (guid.size() < 3 || guid.size() > 18 || !fabric::ParseGuid(guid, &e.guid)) {
      *problem = "expected 0x and up to 16 hex digits (a node GUID), then optionally :PORT";
      return std::nullopt;
    }
    if (colon != std::string::npos) {
      auto port = Number(text.substr(colon + 1), 0, 255);
      if (!port) {
        *problem = "expected a port number 0..255 after the GUID";
        return std::nullopt;
      }
      e.port = static_cast<int>(*port);
    }
    e.kind = EndSpec::Kind::kGuid;
    return e;
  }
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() > 3 || !NameText(parts[0], 128) || (parts.size() > 1 && !NameText(parts[1], 64))) {
    *problem = "expected NODE[/DEVICE[/PORT]], lid:N or 0xGUID[:PORT]";
    return std::nullopt;
  }
  e.node = parts[0];
  if (parts.size() > 1) e.device = parts[1];
  if (parts.size() > 2) {
    auto port = Number(parts[2], 1, 255);
    if (!port) {
      *problem = "expected a port number 1..255 after the device";
      return std::nullopt;
    }
    e.port = static_cast<int>(*port);
  }
  return e;
}

std::string EndText(const EndSpec& e) {
  switch (e.kind) {
    case EndSpec::Kind::kLid: return "LID " + std::to_string(e.lid);
    case EndSpec::Kind::kGuid: return GuidText(e.guid) + (e.port ? " port " + std::to_string(*e.port) : "");
    case EndSpec::Kind::kAgent: break;
  }
  return "node " + e.node + (e.device.empty() ? "" : " " + e.device) + (e.port ? " port " + std::to_string(*e.port) : "");
}

const fabric::FabricPort* PortOf(const fabric::FabricNode& n, int number) {
  for (const fabric::FabricPort& p : n.ports)
    if (p.number == number) return &p;
  return nullptr;
}

// The ports `e` may be, in the order to try; or, with none, what is missing in *missing.
std::vector<Candidate> Resolve(const EndSpec& e, const fabric::RouteTable& routes,
                               const std::map<AgentPort, FabricAddress>& agents, std::string* missing) {
  std::vector<Candidate> out;
  if (e.kind == EndSpec::Kind::kLid) {
    int port = 0;
    const fabric::FabricNode* n = routes.Owner(e.lid, &port);
    if (!n) *missing = "no port of the stored sweeps has LID " + std::to_string(e.lid);
    else out.push_back(Candidate{PortRef{n->guid, port}, e.lid, "", "", true});
    return out;
  }
  if (e.kind == EndSpec::Kind::kGuid) {
    const fabric::FabricNode* n = routes.Node(e.guid);
    if (!n) {
      *missing = "no node " + GuidText(e.guid) + " in the stored sweeps";
      return out;
    }
    if (n->type == fabric::NodeType::kSwitch) {
      if (e.port && *e.port != 0) *missing = "a switch is reached at port 0 (its LID): ask for " + GuidText(e.guid);
      else if (!n->lid) *missing = "switch " + GuidText(e.guid) + " has no LID in the stored sweeps";
      else out.push_back(Candidate{PortRef{n->guid, 0}, n->lid, "", "", false});
      return out;
    }
    for (const fabric::FabricPort& p : n->ports)
      if ((!e.port || p.number == *e.port) && p.lid) out.push_back(Candidate{PortRef{n->guid, p.number}, p.lid, "", "", false});
    if (out.empty())
      *missing = GuidText(e.guid) + (e.port ? " has no port " + std::to_string(*e.port) + " with a LID"
                                            : " has no port with a LID") + " in the stored sweeps";
    return out;
  }
  bool any_port = false;
  std::string why;
  for (const auto& [at, addr] : agents) {
    if (at.node != e.node || (!e.device.empty() && at.device != e.device) || (e.port && at.port != *e.port)) continue;
    any_port = true;
    const std::string name = at.node + " " + at.device + " port " + std::to_string(at.port);
    const fabric::FabricNode* n = routes.Node(addr.node_guid);
    const fabric::FabricPort* p = n ? PortOf(*n, at.port) : nullptr;
    if (!n || !p) {
      if (why.empty())
        why = name + " (node GUID " + GuidText(addr.node_guid) + ") is in no stored sweep of its subnet";
      continue;
    }
    const uint32_t lid = addr.lid ? addr.lid : p->lid;
    if (!lid) {
      if (why.empty()) why = name + " has no LID";
      continue;
    }
    out.push_back(Candidate{PortRef{addr.node_guid, at.port}, lid, at.node, at.device, false});
  }
  if (out.empty())
    *missing = any_port ? why
                        : "no InfiniBand port of " + EndText(e) +
                              " in the agents' inventories (an unknown node, device or port, or one without a node GUID)";
  return out;
}

json PortJson(const fabric::RouteTable& routes, const PortRef& ref, uint32_t lid, const Candidate* c) {
  const fabric::FabricNode* n = routes.Node(ref.guid);
  json j = {{"guid", GuidText(ref.guid)}, {"port", ref.port}, {"description", n ? n->description : ""}};
  if (lid) j["lid"] = lid;
  if (n) j["type"] = fabric::NodeTypeName(n->type);
  if (c && !c->node.empty()) {
    j["node"] = c->node;
    j["device"] = c->device;
  }
  return j;
}

json RouteJson(const fabric::RouteTable& routes, const fabric::Route& r, const Candidate& src, const Candidate& dst,
               int64_t version) {
  json hops = json::array(), cables = json::array();
  for (const fabric::Hop& h : r.hops)
    hops.push_back({{"guid", GuidText(h.node->guid)},
                    {"description", h.node->description},
                    {"in_port", h.in_port},
                    {"out_port", h.out_port}});
  for (const fabric::Cable& c : r.cables)
    cables.push_back({{"from", PortJson(routes, c.from, 0, nullptr)}, {"to", PortJson(routes, c.to, 0, nullptr)}});
  return {{"version", version},
          {"src", PortJson(routes, r.src, src.lid, &src)},
          {"dst", PortJson(routes, r.dst, dst.lid, &dst)},
          {"hops", std::move(hops)},
          {"cables", std::move(cables)}};
}

}  // namespace

void ApiServer::GetFabricPath(const httplib::Request& req, httplib::Response& res) {
  EndSpec ends[2];
  const char* const names[2] = {"src", "dst"};
  for (int i = 0; i < 2; ++i) {
    if (!req.has_param(names[i]))
      return (void)BadParam(res, names[i], "required: NODE[/DEVICE[/PORT]], lid:N or 0xGUID[:PORT]");
    std::string problem;
    auto e = ParseEnd(req.get_param_value(names[i]), &problem);
    if (!e) return (void)BadParam(res, names[i], problem);
    ends[i] = *e;
  }
  auto topology = store_.topology.Topology();
  if (!topology.ok()) return SendStoreFailure(res, topology.status(), "the fabric's topology", options_.log);
  const FabricTopology& t = topology.value();
  if (t.fabric.nodes.empty())
    return SendError(res, 404, "no fabric sweep",
                     "no sweep is stored yet: set fabric_sweep_interval on an agent of each InfiniBand subnet");
  std::map<AgentPort, FabricAddress> agents;
  for (const EndSpec& e : ends) {
    if (e.kind != EndSpec::Kind::kAgent) continue;
    auto a = store_.topology.PortAddresses(e.node);
    if (!a.ok()) return SendStoreFailure(res, a.status(), "the agents' ports", options_.log);
    agents.insert(a.value().begin(), a.value().end());
  }
  fabric::RouteTable routes(t.fabric);
  std::vector<Candidate> cands[2];
  for (int i = 0; i < 2; ++i) {
    std::string missing;
    cands[i] = Resolve(ends[i], routes, agents, &missing);
    if (cands[i].empty())
      return SendError(res, 404, i == 0 ? "unknown source" : "unknown destination", missing);
  }
  std::optional<Status> first_failure;
  for (const Candidate& src : cands[0]) {
    for (const Candidate& dst : cands[1]) {
      auto r = routes.Trace(src.ref, dst.lid);
      if (r.ok() && (dst.any_owner || r.value().dst == dst.ref))
        return SendJson(res, RouteJson(routes, r.value(), src, dst, t.version));
      if (!first_failure)
        first_failure = r.ok() ? Status::Error("the route from " + fabric::PortRefText(src.ref) + " toward LID " +
                                               std::to_string(dst.lid) + " ends at " +
                                               fabric::PortRefText(r.value().dst) + ", not at " +
                                               fabric::PortRefText(dst.ref) + " (another subnet's LID?)")
                               : r.status();
    }
  }
  SendError(res, 404, "no route",
            "from " + EndText(ends[0]) + " to " + EndText(ends[1]) + ": " + first_failure->message());
}

}  // namespace rdmascope::collector
