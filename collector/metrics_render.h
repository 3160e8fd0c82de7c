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

#include "collector/collector_metrics.h"

namespace rdmascope::collector {

// snapshot: Store::MetricsSnapshot(). Text exposition format 0.0.4.
std::string RenderMetrics(const nlohmann::json& snapshot, const CollectorMetrics& self, int64_t db_size_bytes);

// The metric name a sysfs port counter is exported under, or "" when it has none.
std::string PortCounterMetricName(const std::string& sysfs_name);

}  // namespace rdmascope::collector
