// Store::MetricsSnapshot: the rows /metrics is built from, all out of the
// read snapshot (read_snapshot.h): no SQL and no store mutex, so a scrape
// never waits for an ingest commit or a diagnosis run.
#include "collector/store/store.h"

namespace rdmascope::collector {

using nlohmann::json;

Result<Store::MetricsParts> Store::MetricsSnapshotParts(int64_t probes_since_ms, int worst_pairs) {
  ReadSnapshot::View view = snapshot_.Take();
  json out = SnapshotMetricsRows(view, probes_since_ms, worst_pairs);
  out["diagnoses_open"] = *view.diagnoses_open;  // refreshed by ApplyDiagnoses
  out["worst_pairs_limit"] = worst_pairs;
  json thresholds = json::object();
  for (const auto& [name, value] : options_.thresholds) thresholds[name] = value;
  out["thresholds"] = std::move(thresholds);
  return MetricsParts{std::move(out), std::move(view.nodes)};
}

Result<json> Store::MetricsSnapshot(int64_t probes_since_ms, int worst_pairs) {
  auto parts = MetricsSnapshotParts(probes_since_ms, worst_pairs);
  if (!parts.ok()) return parts.status();
  json out = std::move(parts.value().rows);
  json& ports = out["ports"] = json::array();
  json& counters = out["counters"] = json::array();
  for (const auto& n : parts.value().nodes) {
    for (const json& r : n->ports) ports.push_back(r);
    for (const json& r : n->counters) counters.push_back(r);
  }
  return out;
}

}  // namespace rdmascope::collector
