#include "fabric/fabric_errors.h"

namespace rdmascope::fabric {

FabricErrors EvaluateFabricErrors(const Fabric& fabric, const CounterThresholds& thresholds) {
  FabricErrors out;
  for (const FabricNode& n : fabric.nodes) {
    for (const FabricPort& p : n.ports) {
      if (p.counters.empty()) continue;
      ++out.ports_checked;
      for (const auto& [name, v] : p.counters) {
        auto t = thresholds.find(name);
        if (t == thresholds.end() || v.value < t->second) continue;
        out.findings.push_back(PortFinding{n.guid, n.description, p.number, p.lid, name, v.value, v.saturated,
                                           t->second, p.remote});
      }
    }
  }
  if (!out.findings.empty() || !fabric.unreachable.empty()) out.severity = 1;
  return out;
}

}  // namespace rdmascope::fabric
