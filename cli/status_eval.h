// The verdict of `rdmactl status` from a collector's view of the fabric.
//
// Contract (monitoring-plugin severities):
//  - CRITICAL: a port not ACTIVE (or with an unknown state), or an open
//    wc_error event (a path failing with transport errors).
//  - WARNING: a stale node (no report within the collector's stale window),
//    an open counter_threshold event, or no node known at all.
//  - OK otherwise. An unreachable collector is CRITICAL (decided by the caller).
#pragma once

#include <string>
#include <vector>

#include "agent/node/health.h"
#include "cli/status_client.h"

namespace rdmascope::cli {

struct StatusFinding {
  Severity severity = Severity::kOk;
  std::string what;
};

struct StatusVerdict {
  Severity severity = Severity::kOk;
  std::vector<StatusFinding> findings;
  int stale_nodes = 0;
  int bad_ports = 0;
};

StatusVerdict EvaluateStatus(const CollectorView& v);

}  // namespace rdmascope::cli
