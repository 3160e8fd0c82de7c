// Store::MetricsSnapshot: the rows /metrics is built from, all out of the
// read snapshot (read_snapshot.h): no SQL and no store mutex, so a scrape
// never waits for an ingest commit or a diagnosis run.
#include "collector/store.h"

namespace rdmascope::collector {

using nlohmann::json;

Result<json> Store::MetricsSnapshot(int64_t probes_since_ms, int worst_pairs) {
  const ReadSnapshot::View view = snapshot_.Take();
  json out = SnapshotMetricsRows(view, probes_since_ms, worst_pairs);
  out["diagnoses_open"] = *view.diagnoses_open;  // refreshed by ApplyDiagnoses
  out["worst_pairs_limit"] = worst_pairs;
  json thresholds = json::object();
  for (const auto& [name, value] : options_.thresholds) thresholds[name] = value;
  out["thresholds"] = std::move(thresholds);
  return out;
}

}  // namespace rdmascope::collector
