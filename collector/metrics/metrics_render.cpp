#include "collector/metrics/metrics_render.h"

#include "collector/core/event_kinds.h"
#include "collector/metrics/metrics_hygiene.h"
#include "collector/readmodel/metrics_port_text.h"

#include <prometheus/text_serializer.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string_view>
#include <utility>

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

std::string Str(const json& v) { return MetricLabelText(v); }

ClientMetric Metric(std::vector<ClientMetric::Label> labels, MetricType type, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  if (type == MetricType::Counter)
    m.counter.value = value;
  else
    m.gauge.value = value;
  return m;
}

struct Families {
  std::map<std::string, MetricFamily> by_name;
  MetricFamily& Get(const std::string& name, const std::string& help, MetricType type) {
    MetricFamily& f = by_name[name];
    if (f.name.empty()) {
      f.name = name;
      f.help = help;
      f.type = type;
    }
    return f;
  }
  void Add(const std::string& name, const std::string& help, MetricType type, std::vector<ClientMetric::Label> labels,
           double value) {
    Get(name, help, type).metric.push_back(Metric(std::move(labels), type, value));
  }
};

void Probes(const json& snap, Families* f) {
  // Plain gauges, one family per quantile: each is the worst target's value
  // in the node's newest interval per target (a max over targets cannot be
  // a Summary, whose quantiles must come from one stream of observations).
  for (const json& a : snap["probe_nodes"]) {
    const std::vector<ClientMetric::Label> labels = {{"node", Str(a["src"])}, {"transport", Str(a["transport"])}};
    const struct {
      const char* name;
      const char* help;
      const char* field;
    } quantiles[] = {
        {"rdmascope_probe_rtt_p50_seconds", "Probe RTT p50 of the node's worst target (newest interval per target), seconds.", "rtt_p50_max"},
        {"rdmascope_probe_rtt_p90_seconds", "Probe RTT p90 of the node's worst target (newest interval per target), seconds.", "rtt_p90_max"},
        {"rdmascope_probe_rtt_p99_seconds", "Probe RTT p99 of the node's worst target (newest interval per target), seconds.", "rtt_p99_max"},
    };
    for (const auto& q : quantiles)
      if (a[q.field].is_number()) f->Add(q.name, q.help, MetricType::Gauge, labels, a[q.field].get<double>() / 1e6);
    if (a["rtt_count"].get<double>() > 0)
      f->Add("rdmascope_probe_rtt_mean_seconds",
             "Mean probe RTT over every probe answered in the node's newest interval per target, seconds.",
             MetricType::Gauge, labels, a["rtt_sum_us"].get<double>() / a["rtt_count"].get<double>() / 1e6);
    if (a["sent"].get<double>() > 0)
      f->Add("rdmascope_probe_loss_ratio", "Probes lost over probes sent in the node's newest interval per target.",
             MetricType::Gauge, labels, a["lost"].get<double>() / a["sent"].get<double>());
  }
  size_t n = static_cast<size_t>(std::max(0, snap.value("worst_pairs_limit", 20)));
  for (const json& p : snap["worst_pairs"]) {
    if (n-- == 0) break;
    f->Add("rdmascope_probe_pair_rtt_p99_seconds",
           "p99 probe round-trip time of the worst pairs (bounded worst-N), seconds.", MetricType::Gauge,
           {{"src", Str(p["src"])}, {"dst", Str(p["dst"])}, {"transport", Str(p["transport"])}},
           p["rtt_p99"].get<double>() / 1e6);
  }
}

void NodesAndEvents(const json& snap, Families* f) {
  for (const json& n : snap["nodes"]) {
    f->Add("rdmascope_node_last_report_timestamp_seconds", "When the collector received the node's newest report.",
           MetricType::Gauge, {{"node", Str(n["name"])}}, n["last_report_at"].get<double>() / 1000.0);
    if (n.contains("stale"))
      f->Add("rdmascope_node_stale",
             "1 when the node has been silent longer than the stale time; dropped from /metrics later.",
             MetricType::Gauge, {{"node", Str(n["name"])}}, n["stale"].get<bool>() ? 1 : 0);
  }
  std::map<std::pair<std::string, std::string>, double> wc;  // (node, bounded status) -> count
  for (const json& w : snap["wc_totals"]) wc[{Str(w["node"]), BoundedWcStatus(Str(w["status"]))}] += w["count"].get<double>();
  for (const auto& [key, count] : wc)
    f->Add("rdmascope_wc_errors_total",
           "Failed work completions recorded by the node's probes, by status (verbs short name, PROBE_DEADLINE, "
           "CONNECT or OTHER).",
           MetricType::Counter, {{"node", key.first}, {"status", key.second}}, count);
  std::map<std::string, double> open;
  for (auto k : kEventKinds) open[std::string(k)] = 0;
  for (const json& e : snap["events_open"]) open[Str(e["kind"])] = e["n"].get<double>();
  for (const auto& [kind, n] : open)
    f->Add("rdmascope_events_open", "Open (not yet cleared) events by kind.", MetricType::Gauge, {{"kind", kind}}, n);
  // Open diagnoses; an empty family when none is open (scope and kind are bounded lists).
  static const char kHelp[] = "Open diagnoses (where a fault is and why) by scope and kind.";
  f->Get("rdmascope_diagnoses_open", kHelp, MetricType::Gauge);
  for (const json& d : snap["diagnoses_open"])
    f->Add("rdmascope_diagnoses_open", kHelp, MetricType::Gauge, {{"scope", Str(d["scope"])}, {"kind", Str(d["kind"])}}, d["n"].get<double>());
}

// Fabric ports' error counters, bounded: only error counters (the threshold
// table's names) that are non-zero, the kMaxFabricErrorSeries largest, labelled
// by switch GUID, its description, port, the peer's description and counter.
constexpr size_t kMaxFabricErrorSeries = 200;

void Fabric(const json& snap, Families* f) {
  if (!snap.contains("fabric_links")) return;
  double up = 0, gone = 0;
  for (const json& l : snap["fabric_links"]) (l["up"].get<int64_t>() ? up : gone) += l["n"].get<double>();
  f->Add("rdmascope_fabric_links", "InfiniBand links the newest sweeps saw, by state (gone: missing since).",
         MetricType::Gauge, {{"state", "up"}}, up);
  f->Add("rdmascope_fabric_links", "InfiniBand links the newest sweeps saw, by state (gone: missing since).",
         MetricType::Gauge, {{"state", "gone"}}, gone);
  for (const json& n : snap["fabric_nodes"])
    f->Add("rdmascope_fabric_nodes", "InfiniBand nodes seen by sweeps and neighbour lookups, by type.",
           MetricType::Gauge, {{"type", Str(n["type"])}}, n["n"].get<double>());
  struct Series {
    const json* port;
    std::string counter;
    double value;
  };
  std::vector<Series> series;
  const json& thresholds = snap["thresholds"];
  for (const json& p : snap["fabric_ports"]) {
    if (!p["counters"].is_object()) continue;
    for (const auto& [name, v] : p["counters"].items())
      if (thresholds.contains(name) && v.is_number() && v.get<double>() > 0) series.push_back({&p, name, v.get<double>()});
  }
  std::sort(series.begin(), series.end(), [](const Series& a, const Series& b) { return a.value > b.value; });
  if (series.size() > kMaxFabricErrorSeries) series.resize(kMaxFabricErrorSeries);
  for (const Series& s : series) {
    const json& p = *s.port;
    std::string metric = PortCounterMetricName(s.counter);
    if (metric.empty()) continue;
    f->Add("rdmascope_fabric_" + metric.substr(std::string("rdmascope_").size()),
           "Error counter of an InfiniBand fabric port (non-zero only, the largest 200), as its last sweep read it.",
           MetricType::Counter,
           {{"guid", Str(p["guid"])}, {"switch", Str(p["description"])}, {"port", Str(p["port"])},
            {"peer", Str(p["peer"])}},
           s.value);
  }
}

}  // namespace

std::string RenderMetrics(const json& snapshot, const std::vector<const PortFamilies*>& port_text,
                          const CollectorMetrics& self, int64_t db_size_bytes) {
  Families f;
  Probes(snapshot, &f);
  NodesAndEvents(snapshot, &f);
  Fabric(snapshot, &f);
  f.Add("rdmascope_collector_db_size_bytes", "Size of the SQLite database file plus its WAL, bytes.",
        MetricType::Gauge, {}, static_cast<double>(db_size_bytes));
  std::vector<MetricFamily> all;
  for (auto& [name, fam] : f.by_name) all.push_back(std::move(fam));
  for (MetricFamily& fam : self.Collect()) all.push_back(std::move(fam));
  std::string text;
  AppendPortFamiliesText(port_text, &text);
  text += prometheus::TextSerializer().Serialize(all);
  return text;
}

std::string RenderMetrics(const json& snapshot, const CollectorMetrics& self, int64_t db_size_bytes) {
  PortRowSets rows;
  if (snapshot.contains("ports")) rows.ports.push_back(&snapshot["ports"]);
  if (snapshot.contains("counters")) rows.counters.push_back(&snapshot["counters"]);
  const PortFamilies families = RenderPortFamilies(rows);
  return RenderMetrics(snapshot, {&families}, self, db_size_bytes);
}

}  // namespace rdmascope::collector
