// Fabric ports over their error thresholds (the shared table,
// common/counter_thresholds.h), for `rdmactl fabric errors` and the agent.
//
// Contract: a counter at or above its threshold is a finding on that port
// (a saturated counter is reported as ">= value"); a node that did not answer
// is a finding too. Severity: 0 none, 1 any finding. Absent counters are
// never compared.
#pragma once

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
};

struct FabricErrors {
  int ports_checked = 0;
  std::vector<PortFinding> findings;
  int severity = 0;  // 0 ok, 1 warning
};

FabricErrors EvaluateFabricErrors(const Fabric& fabric, const CounterThresholds& thresholds);

}  // namespace rdmascope::fabric
