#pragma once
// Keeps /metrics bounded as a fleet changes.
//
// Contract:
//  - BoundedWcStatus maps a stored WC status to the label value exported:
//    a known verbs status by its short name ("RETRY_EXC_ERR"), the probe's
//    own PROBE_DEADLINE and CONNECT, and anything else as OTHER — so a
//    hostile or buggy agent cannot mint label values.
//  - ApplyNodeStaleness, on a ReadModel::MetricsSnapshot(): marks each node
//    "stale" (silent longer than stale_after_ms) and removes every row of a
//    node silent longer than drop_after_ms (its ports, counters, WC totals,
//    and the probe aggregates and worst pairs it is the source of), so a
//    decommissioned node leaves /metrics instead of being exported for ever.
//    Returns the names of the nodes dropped (rows kept elsewhere, such as
//    per-node port rows, are the caller's to leave out). drop_after_ms <= 0
//    drops nothing.
#include <cstdint>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

std::string BoundedWcStatus(const std::string& status);

std::set<std::string> ApplyNodeStaleness(nlohmann::json& snapshot, int64_t now_ms, int64_t stale_after_ms, int64_t drop_after_ms);

}  // namespace rdmascope::collector
