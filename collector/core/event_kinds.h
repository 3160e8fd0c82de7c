#pragma once
// The one list of event kinds the collector opens. The events table accepts
// any non-empty kind; the API's ?kind= filter and the rdmascope_events_open
// metric take their list from here, so a new kind is added in one place.
#include <string_view>

namespace rdmascope::collector {

// A plain array (no size to keep in step): add a kind on its own line.
inline constexpr std::string_view kEventKinds[] = {
    "wc_error",           // a probe completion failed toward a peer
    "port_state",         // a local port left ACTIVE / LinkUp
    "counter_threshold",  // a port error counter rose past its threshold
    "port_congested",     // a port waited to send (PortXmitWait) faster than its rate threshold: congestion
    "clock_skew",         // the agent's clock is off by more than the tolerance
    "counter_saturated",  // a saturating error counter sits at its maximum
    "pcie_degraded",      // an adapter's PCIe link trained below its maximum speed or width
    "link_down",          // an InfiniBand link seen before is gone from a sweep
    "link_errors",        // an error counter on either end of a link rose past its threshold
    "link_degraded",      // a link runs below the width or speed both its ends support
    "fabric_changed",     // a sweep added a node or link, or changed a description or LID (closed at once)
    "responder_qp_error", // an agent's UD responder QP failed (closed once it recovered)
    "reports_lost",       // an agent lost reports (spool full, disk full): a gap in its node's history
};

inline bool IsEventKind(std::string_view kind) {
  for (auto k : kEventKinds)
    if (k == kind) return true;
  return false;
}

}  // namespace rdmascope::collector
