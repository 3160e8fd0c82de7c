// Store::MetricsSnapshot: the rows /metrics is built from, out of the read
// snapshot (read_snapshot.h), and the open diagnoses counted by one small query.
#include "collector/store.h"
#include "collector/store_rows.h"

namespace rdmascope::collector {

using nlohmann::json;

Result<json> Store::MetricsSnapshot(int64_t probes_since_ms, int worst_pairs) {
  json out = SnapshotMetricsRows(snapshot_.Take(), probes_since_ms, worst_pairs);
  {
    // Open diagnoses by scope and kind: a handful of rows, read from the
    // database (they are not part of the in-memory snapshot).
    std::lock_guard<std::mutex> lock(mu_);
    auto q = Q("SELECT scope, kind, COUNT(*) AS n FROM diagnoses WHERE closed_at IS NULL GROUP BY scope, kind");
    if (!q.ok()) return q.status();
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows;
    out["diagnoses_open"] = std::move(rows).value();
  }
  out["worst_pairs_limit"] = worst_pairs;
  json thresholds = json::object();
  for (const auto& [name, value] : options_.thresholds) thresholds[name] = value;
  out["thresholds"] = std::move(thresholds);
  return out;
}

}  // namespace rdmascope::collector
