#include "fabric/fabric_errors.h"

#include <unordered_map>

#include "common/link_rate.h"

namespace rdmascope::fabric {
namespace {

ib::LinkEndRate RateOf(const FabricPort& p) {
  return ib::LinkEndRateOf(p.width_active, p.speed_active, p.speed_ext_active, p.width_supported,
                           p.speed_supported, p.speed_ext_supported);
}

// The finding for the link from port p of n, when it runs below what both
// ends support; judged from its lower end only (each link once).
std::optional<PortFinding> DegradedLink(const FabricNode& n, const FabricPort& p,
                                        const std::unordered_map<uint64_t, const FabricNode*>& by_guid) {
  if (!p.remote || std::make_pair(p.remote->guid, p.remote->port) < std::make_pair(n.guid, p.number))
    return std::nullopt;
  auto other = by_guid.find(p.remote->guid);
  if (other == by_guid.end()) return std::nullopt;
  const FabricPort* q = nullptr;
  for (const FabricPort& c : other->second->ports)
    if (c.number == p.remote->port) q = &c;
  if (!q) return std::nullopt;
  const ib::LinkEndRate a = RateOf(p), b = RateOf(*q);
  const ib::LinkRateVerdict v = ib::JudgeLinkRate(a, b);
  if (!v.degraded) return std::nullopt;
  PortFinding f{n.guid, n.description, p.number, p.lid, "link_degraded", 0, false, 0, p.remote, 1, {}};
  f.detail = v.status + ": runs " + v.width + " " + v.speed + ", both ends support " + a.width_supported + "/" +
             b.width_supported + " " + a.speed_supported + "/" + b.speed_supported;
  return f;
}

}  // namespace

FabricErrors EvaluateFabricErrors(const Fabric& fabric, const CounterThresholds& thresholds) {
  FabricErrors out;
  std::unordered_map<uint64_t, const FabricNode*> by_guid;
  for (const FabricNode& n : fabric.nodes) by_guid.emplace(n.guid, &n);
  for (const FabricNode& n : fabric.nodes) {
    for (const FabricPort& p : n.ports) {
      if (std::optional<PortFinding> slow = DegradedLink(n, p, by_guid)) out.findings.push_back(std::move(*slow));
      constexpr int kLinkUp = 5, kActive = 4;
      if (p.phys_state == kLinkUp && p.state != kActive) {
        out.findings.push_back(PortFinding{n.guid, n.description, p.number, p.lid, "state",
                                           static_cast<uint64_t>(p.state), false, kActive, p.remote, 2, {}});
        out.severity = 2;
      }
      if (p.counters.empty()) continue;
      ++out.ports_checked;
      for (const auto& [name, v] : p.counters) {
        auto t = thresholds.find(name);
        if (t == thresholds.end() || v.value < t->second) continue;
        out.findings.push_back(PortFinding{n.guid, n.description, p.number, p.lid, name, v.value, v.saturated,
                                           t->second, p.remote, 1, {}});
      }
    }
  }
  if (out.severity == 0 && (!out.findings.empty() || !fabric.unreachable.empty())) out.severity = 1;
  return out;
}

}  // namespace rdmascope::fabric
