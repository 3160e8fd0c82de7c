// The per-port families of /metrics, written straight to exposition text.
//
// A fleet has hundreds of thousands of port counter series (2,000 nodes x 8
// ports x ~11 counters); building a prometheus-cpp object per series and
// serialising them cost most of a second per scrape, so these families are
// written directly. Everything else in /metrics still goes through
// prometheus-cpp (metrics_render.cpp).
//
// Contract:
//  - ports: arrays of ReadModel::MetricsSnapshot "ports" rows, counters: arrays of
//    its "counters" rows (one array per node, or one for the whole fleet);
//    rows are read in the order given. A port state that is not a number is
//    not exported; a counter row whose kind or name is not a string or
//    whose value is not a number is left out.
//  - Families: rdmascope_port_info, rdmascope_port_state, rdmascope_port_up;
//    each counter under PortCounterMetricName when it has one, else under
//    rdmascope_port_stat_total / rdmascope_port_hw_stat_total with a
//    "counter" label. Only names of the shared counter table
//    (common/counter_names.h) are exported: any other is left out, so what
//    a node sends cannot add series (/api/v1/counters still shows it). A
//    family without samples is not written.
//  - The text is what prometheus-cpp's TextSerializer writes for the same
//    families and samples (HELP, TYPE, label escaping, value digits).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

struct PortRowSets {
  std::vector<const nlohmann::json*> ports;
  std::vector<const nlohmann::json*> counters;
};

// One family's header and its sample lines (the body, "" when none).
struct TextFamily {
  std::string name, help, type, body;
};
using PortFamilies = std::vector<TextFamily>;  // by name, none empty

// The families of the rows, rendered once (the read snapshot keeps each
// node's, made when the node is published).
PortFamilies RenderPortFamilies(const PortRowSets& rows);
// Appends the families of every part to *out, each family once: its HELP
// and TYPE, then its samples part by part (parts in the order given).
void AppendPortFamiliesText(const std::vector<const PortFamilies*>& parts, std::string* out);

// A label value as /metrics has always written it: strings as they are,
// floats with %g, null as "", anything else as its JSON text.
std::string MetricLabelText(const nlohmann::json& v);

// The metric name a sysfs port counter is exported under, or "" when it has none.
std::string PortCounterMetricName(const std::string& sysfs_name);

}  // namespace rdmascope::collector
