// Store::MetricsSnapshot: the rows /metrics is built from.
#include "collector/store.h"
#include "collector/store_rows.h"

namespace rdmascope::collector {

using nlohmann::json;

Result<json> Store::MetricsSnapshot(int64_t probes_since_ms, int worst_pairs) {
  std::lock_guard<std::mutex> lock(mu_);
  json out = json::object();
  struct Part {
    const char* name;
    const char* sql;
  };
  const Part parts[] = {
      {"ports", "SELECT node, device, port, state, link_layer, lid, gids AS gids_json, active_mtu, rate_gbps "
                "FROM ports ORDER BY node, device, port"},
      {"counters", "SELECT node, device, port, kind, name, value FROM counters_latest WHERE value IS NOT NULL "
                   "ORDER BY node, device, port, kind, name"},
      {"nodes", "SELECT name, last_report_at FROM nodes ORDER BY name"},
      {"wc_totals", "SELECT node, status, count FROM wc_error_totals ORDER BY node, status"},
      {"events_open", "SELECT kind, COUNT(*) AS n FROM events WHERE ended_at IS NULL GROUP BY kind"},
      {"diagnoses_open", "SELECT scope, kind, COUNT(*) AS n FROM diagnoses WHERE closed_at IS NULL GROUP BY scope, kind"},
      // Fabric (issue 10): link counts, node counts, and ports whose counters are known.
      {"fabric_links", "SELECT (gone_at IS NULL) AS up, COUNT(*) AS n FROM fabric_links GROUP BY up"},
      {"fabric_nodes", "SELECT type, COUNT(*) AS n FROM fabric_nodes GROUP BY type"},
      {"fabric_ports", "SELECT p.guid, p.port, COALESCE(n.description, '') AS description, "
                       "COALESCE(r.description, '') AS peer, p.counters AS counters_json FROM fabric_ports p "
                       "LEFT JOIN fabric_nodes n ON n.guid = p.guid LEFT JOIN fabric_nodes r ON r.guid = p.remote_guid "
                       "WHERE p.counters <> '{}'"},
  };
  for (const Part& p : parts) {
    auto q = Q(p.sql);
    if (!q.ok()) return q.status();
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows;
    out[p.name] = std::move(rows).value();
  }
  // The newest summary of each pair in the window.
  auto q = Q("SELECT src, dst, transport, sent, lost, rtt_count, rtt_avg, rtt_p50, rtt_p90, rtt_p99 FROM probe_summaries "
             "JOIN (SELECT src AS l_src, dst AS l_dst, transport AS l_transport, MAX(interval_end) AS l_end "
             "FROM probe_summaries WHERE interval_end >= ?1 GROUP BY src, dst, transport) "
             "ON src = l_src AND dst = l_dst AND transport = l_transport AND interval_end = l_end "
             "ORDER BY src, transport, dst");
  if (!q.ok()) return q.status();
  q.value()->Bind(1, probes_since_ms);
  auto rows = Rows(*q.value());
  if (!rows.ok()) return rows;
  out["pairs"] = std::move(rows).value();
  out["worst_pairs_limit"] = worst_pairs;
  json thresholds = json::object();
  for (const auto& [name, value] : options_.thresholds) thresholds[name] = value;
  out["thresholds"] = std::move(thresholds);
  return out;
}

}  // namespace rdmascope::collector
