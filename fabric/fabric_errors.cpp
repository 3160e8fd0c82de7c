#include "fabric/fabric_errors.h"

namespace rdmascope::fabric {

FabricErrors EvaluateFabricErrors(const Fabric& fabric, const CounterThresholds& thresholds) {
  FabricErrors out;
  for (const FabricNode& n : fabric.nodes) {
    for (const FabricPort& p : n.ports) {
      constexpr int kLinkUp = 5, kActive = 4;
      if (p.phys_state == kLinkUp && p.state != kActive) {
        out.findings.push_back(PortFinding{n.guid, n.description, p.number, p.lid, "state",
                                           static_cast<uint64_t>(p.state), false, kActive, p.remote, 2});
        out.severity = 2;
      }
      if (p.counters.empty()) continue;
      ++out.ports_checked;
      for (const auto& [name, v] : p.counters) {
        auto t = thresholds.find(name);
        if (t == thresholds.end() || v.value < t->second) continue;
        out.findings.push_back(PortFinding{n.guid, n.description, p.number, p.lid, name, v.value, v.saturated,
                                           t->second, p.remote, 1});
      }
    }
  }
  if (out.severity == 0 && (!out.findings.empty() || !fabric.unreachable.empty())) out.severity = 1;
  return out;
}

}  // namespace rdmascope::fabric
