// /metrics text: the store snapshot plus the collector's own metrics.
//
// Contract: names follow DESIGN.md (prefix rdmascope_, base units, _total on
// counters, the host exporter's InfiniBand counter names after the prefix where
// one exists). Cardinality is bounded: per port, per node and transport, and
// a worst-N of pairs; per-pair latency otherwise stays in the API.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "collector/metrics/collector_metrics.h"
#include "collector/readmodel/metrics_port_text.h"

namespace rdmascope::collector {

// snapshot: ReadModel::MetricsSnapshot(); its "ports" and "counters" rows are
// not read: port_text holds their families, rendered (metrics_port_text.h).
// Text exposition format 0.0.4.
std::string RenderMetrics(const nlohmann::json& snapshot, const std::vector<const PortFamilies*>& port_text,
                          const CollectorMetrics& self, int64_t db_size_bytes);
// The same with the port rows taken from snapshot["ports"] and snapshot["counters"].
std::string RenderMetrics(const nlohmann::json& snapshot, const CollectorMetrics& self, int64_t db_size_bytes);

}  // namespace rdmascope::collector
