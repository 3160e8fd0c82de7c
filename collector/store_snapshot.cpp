// Store::MetricsSnapshot: the rows /metrics is built from, out of the read
// snapshot (read_snapshot.h): no SQL, no store mutex.
#include "collector/store.h"

namespace rdmascope::collector {

using nlohmann::json;

Result<json> Store::MetricsSnapshot(int64_t probes_since_ms, int worst_pairs) {
  json out = SnapshotMetricsRows(snapshot_.Take(), probes_since_ms);
  out["worst_pairs_limit"] = worst_pairs;
  json thresholds = json::object();
  for (const auto& [name, value] : options_.thresholds) thresholds[name] = value;
  out["thresholds"] = std::move(thresholds);
  return out;
}

}  // namespace rdmascope::collector
