// Fabric ports over their error thresholds (the shared table,
// common/counter_thresholds.h), for `rdmactl fabric errors` and the agent.
//
// Contract: a counter at or above its threshold is a warning on that port
// (a saturated counter is reported as ">= value"); a node that did not answer
// is a warning too; a port whose cable is up (LinkUp) but that is not ACTIVE
// (no subnet manager brought it up) is critical, like a port not ACTIVE in
// `rdmactl health`. A link whose width or speed runs below what both its
// ends support (common/link_rate.h, the collector's rule too) is a warning,
// reported once, on its lower end (GUID, then port), as counter
// "link_degraded" with what is slow in `detail`. Severity: 0 none, 1
// warnings, 2 anything critical. Absent counters are never compared.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/counter_thresholds.h"
#include "fabric/fabric_model.h"

namespace rdmascope::fabric {

struct PortFinding {
  uint64_t guid = 0;
  std::string description;
  int port = 0;
  uint32_t lid = 0;
  std::string counter;
  uint64_t value = 0;
  bool saturated = false;
  uint64_t threshold = 0;
  std::optional<RemoteEnd> remote;
  int severity = 1;     // 2: counter is "state", value the PortState number
  std::string detail;   // link_degraded: "width 1X: runs 1X QDR, both ends support 4X/4X QDR/QDR"
};

struct FabricErrors {
  int ports_checked = 0;
  std::vector<PortFinding> findings;
  int severity = 0;  // 0 ok, 1 warning, 2 critical
};

FabricErrors EvaluateFabricErrors(const Fabric& fabric, const CounterThresholds& thresholds);

}  // namespace rdmascope::fabric
