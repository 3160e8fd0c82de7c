#include "fabric/neighbour.h"

#include <optional>

#include "fabric/fabric_json.h"
#include "fabric/mad_codec.h"
#include "fabric/port_query.h"

namespace rdmascope::fabric {

Result<Neighbour> QueryNeighbour(MadTransport& transport, const EngineOptions& options, int local_port) {
  Neighbour out;
  out.local_port = local_port;
  std::vector<int> path = {local_port};
  Status failed;
  auto check = [&](const MadAnswer& a, const char* attr) {
    Status s = a.ok ? SmpStatus(*a.mad, attr) : Status::Error(a.error);
    if (!s.ok() && failed.ok()) failed = s;
    return s.ok();
  };
  {
    MadEngine e(transport, options);
    NodeInfoData info;
    // The port's PortInfo is decoded once both answers are in: a switch's
    // external port takes port 0's CapabilityMask (its own is reserved).
    std::optional<MadBytes> port_info;
    std::optional<uint32_t> port0_capmask;
    e.Submit(DirectedGet(kAttrNodeInfo, 0, path), "NodeInfo via DR " + PathText(path), [&](const MadAnswer& a) {
      if (!check(a, "NodeInfo")) return;
      info = ParseNodeInfo(*a.mad);
      e.Submit(DirectedGet(kAttrNodeDesc, 0, path), "NodeDescription via DR " + PathText(path),
               [&](const MadAnswer& d) {
                 if (check(d, "NodeDescription")) out.description = ParseNodeDescription(*d.mad);
               });
      e.Submit(DirectedGet(kAttrPortInfo, static_cast<uint32_t>(info.local_port), path),
               "PortInfo via DR " + PathText(path), [&](const MadAnswer& p) {
                 if (check(p, "PortInfo")) port_info = *p.mad;
               });
      if (info.type == NodeType::kSwitch)
        e.Submit(DirectedGet(kAttrPortInfo, 0, path), "PortInfo port 0 via DR " + PathText(path),
                 [&](const MadAnswer& p) {
                   if (!check(p, "PortInfo")) return;
                   FabricPort p0;
                   ParsePortInfo(*p.mad, &p0);
                   out.lid = p0.lid;
                   port0_capmask = ParsePortCapabilityMask(*p.mad);
                 });
    });
    Status s = e.Run();
    if (!s.ok()) return s;
    if (!failed.ok()) return failed;
    if (port_info) ParsePortInfo(*port_info, &out.port, info.type == NodeType::kSwitch ? port0_capmask : std::nullopt);
    out.guid = info.node_guid;
    out.type = info.type;
    out.port.number = info.local_port;
    if (info.type != NodeType::kSwitch) out.lid = out.port.lid;
    out.port.lid = out.lid;
  }
  if (out.lid == 0) {
    out.port.counters_error = "the neighbour has no LID: is a subnet manager running?";
    return out;
  }
  Result<PortCounterMap> c = QueryPortCounters(transport, options, out.lid, out.port.number);
  if (c.ok()) out.port.counters = c.value();
  else out.port.counters_error = c.status().message();
  return out;
}

nlohmann::json NeighbourToJson(const Neighbour& n) {
  nlohmann::json port = PortToJson(n.port, true);
  port.erase("remote");
  return {{"local_port", n.local_port}, {"guid", GuidText(n.guid)}, {"type", NodeTypeName(n.type)},
          {"description", n.description}, {"lid", n.lid}, {"port", port}};
}

}  // namespace rdmascope::fabric
