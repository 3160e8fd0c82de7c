// Store queries for the API. Rows become JSON objects keyed by column name
// (the SQL aliases are the API's field names); JSON-valued columns are parsed.
#include "collector/store/counter_rows_sql.h"
#include "collector/store/history_queries.h"
#include "collector/store/store_rows.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;

constexpr char kNodeColumns[] =
    "SELECT n.name, n.labels AS labels_json, n.agent_version, n.first_seen_at AS first_seen_at_ms, "
    "n.last_report_at AS last_report_at_ms, n.last_generated_at AS last_generated_at_ms, n.last_report_id, "
    "n.interval_s, (SELECT COUNT(*) FROM ports p WHERE p.node = n.name) AS port_count, "
    "(SELECT COUNT(*) FROM ports p WHERE p.node = n.name AND (p.state IS NULL OR p.state != 4)) AS ports_not_active, "
    "(SELECT COUNT(*) FROM events e WHERE e.node = n.name AND e.ended_at IS NULL) AS open_event_count FROM nodes n ";

constexpr char kPortColumns[] =
    "SELECT node, device, port, state, state_name, phys_state, phys_state_name, lid, sm_lid, link_layer, active_mtu, "
    "rate_gbps, rate_text, gids AS gids_json, fw, node_guid, updated_at AS updated_at_ms FROM ports ";

#define PROBE_COLUMNS                                                                                               \
  "SELECT src, dst, transport, local_device, local_port, remote_host, interval_start AS interval_start_ms, "       \
  "interval_end AS interval_end_ms, sent, received, lost, loss_ratio, rtt_count, rtt_min AS rtt_min_us, "          \
  "rtt_avg AS rtt_avg_us, rtt_p50 AS rtt_p50_us, rtt_p90 AS rtt_p90_us, rtt_p99 AS rtt_p99_us, "                   \
  "rtt_p999 AS rtt_p999_us, rtt_max AS rtt_max_us, network_p50 AS network_p50_us, network_p99 AS network_p99_us, " \
  "responder_p50 AS responder_p50_us, responder_p99 AS responder_p99_us, read_p50 AS read_p50_us, "                \
  "read_p99 AS read_p99_us, error_count, errors_by_status AS errors_by_status_json, report_id, rail, "          \
  "remote_device, remote_port, not_run "

#define EVENT_COLUMNS                                                                                           \
  "SELECT id, kind, node, peer, transport, device, port, status, detail, count, started_at AS started_at_ms, " \
  "last_seen_at AS last_seen_at_ms, ended_at AS ended_at_ms FROM events "

void AddAge(json* node, int64_t now_ms, int64_t stale_after_ms) {
  int64_t last = (*node)["last_report_at_ms"].get<int64_t>();
  (*node)["age_s"] = static_cast<double>(now_ms - last) / 1000.0;
  (*node)["stale"] = now_ms - last > stale_after_ms;
}

void AddOpen(json* events) {
  for (json& e : *events) e["open"] = e["ended_at_ms"].is_null();
}

}  // namespace

Result<json> HistoryQueries::Nodes(int64_t now_ms, int64_t stale_after_ms, int limit) {
  static const std::string sql = std::string(kNodeColumns) + "ORDER BY n.name LIMIT ?1";
  return History([&](SqlConn& db) -> Result<json> {
    auto q = db.Q(sql.c_str());
    if (!q.ok()) return q.status();
    q.value()->Bind(1, static_cast<int64_t>(limit) + 1);
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows;
    json nodes = std::move(rows).value();
    const bool truncated = TrimToLimit(&nodes, limit);
    for (json& n : nodes) AddAge(&n, now_ms, stale_after_ms);
    return json{{"nodes", std::move(nodes)}, {"truncated", truncated}};
  });
}

Result<std::optional<json>> HistoryQueries::Node(const std::string& name, int64_t now_ms, int64_t stale_after_ms) {
  // A node's own rows: bounded by what one report may carry (report_validate.cpp).
  static const std::string sql = std::string(kNodeColumns) + "WHERE n.name = ?1";
  static const std::string ports_sql = std::string(kPortColumns) + "WHERE node = ?1 ORDER BY device, port";
  auto found = History([&](SqlConn& db) -> Result<json> {
    auto q = db.Q(sql.c_str());
    if (!q.ok()) return q.status();
    q.value()->Bind(1, name);
    auto rows = Rows(*q.value());
    if (!rows.ok() || rows.value().empty()) return rows;
    json node = rows.value()[0];
    AddAge(&node, now_ms, stale_after_ms);
    struct Part {
      const char* member;
      const char* sql;
    };
    const Part parts[] = {
        {"ports", ports_sql.c_str()},
        {"counters", "SELECT device, port, kind, name, value, sampled_at AS sampled_at_ms FROM counters_latest "
                     "WHERE node = ?1 ORDER BY device, port, kind, name"},
        {"open_events", EVENT_COLUMNS "WHERE (node = ?1 OR peer = ?1) AND ended_at IS NULL ORDER BY started_at, id"},
    };
    for (const Part& p : parts) {
      auto pq = db.Q(p.sql);
      if (!pq.ok()) return pq.status();
      pq.value()->Bind(1, name);
      auto part = Rows(*pq.value());
      if (!part.ok()) return part.status();
      node[p.member] = std::move(part).value();
    }
    AddOpen(&node["open_events"]);
    return json::array({std::move(node)});
  });
  if (!found.ok()) return found.status();
  if (found.value().empty()) return std::optional<json>();
  return std::optional<json>(std::move(found.value()[0]));
}

Result<std::string> HistoryQueries::PortsText(const std::optional<std::string>& node, int limit) {
  static const std::string sql =
      std::string(kPortColumns) + "WHERE (CAST(?1 AS TEXT) IS NULL OR node = ?1) ORDER BY node, device, port LIMIT ?2";
  return HistoryText([&](SqlConn& db) -> Result<std::string> {
    auto q = db.Q(sql.c_str());
    if (!q.ok()) return q.status();
    q.value()->Bind(1, node).Bind(2, static_cast<int64_t>(limit) + 1);
    bool truncated = false;
    auto rows = RowsText(*q.value(), limit, &truncated);
    if (!rows.ok()) return rows;
    return "{\"ports\":" + rows.value() + ",\"truncated\":" + (truncated ? "true" : "false") + "}";
  });
}

Result<json> HistoryQueries::Ports(const std::optional<std::string>& node, int limit) {
  auto text = PortsText(node, limit);
  if (!text.ok()) return text.status();
  return json::parse(text.value());
}

Result<json> HistoryQueries::Counters(const std::optional<std::string>& node, int64_t since_ms, int limit,
                             bool with_identity) {
#define COUNTERS_QUERY(columns, from, extra)                                                        \
  "SELECT " columns ", s.sampled_at AS sampled_at_ms, s.report_id" extra " FROM " from              \
  " WHERE (CAST(?1 AS TEXT) IS NULL OR s.node = ?1) AND s.sampled_at >= ?2 ORDER BY s.sampled_at, s.id, k.id, c.id LIMIT ?3"
#define IDENTITY ", (SELECT boot_id FROM reports WHERE id = s.report_id) AS boot_id, s.instance AS instance"
  static constexpr char kPlain[] = COUNTERS_QUERY(COUNTER_ROW_COLUMNS, COUNTER_ROWS_FROM, "");
  static constexpr char kWithIdentity[] = COUNTERS_QUERY(COUNTER_ROW_COLUMNS, COUNTER_ROWS_FROM, IDENTITY);
  static constexpr char kPgPlain[] = COUNTERS_QUERY(COUNTER_ROW_COLUMNS_PG, COUNTER_ROWS_FROM_PG, "");
  static constexpr char kPgWithIdentity[] = COUNTERS_QUERY(COUNTER_ROW_COLUMNS_PG, COUNTER_ROWS_FROM_PG, IDENTITY);
#undef IDENTITY
#undef COUNTERS_QUERY
  return History([&](SqlConn& db) -> Result<json> {
    const bool pg = db.postgres() != nullptr;
    auto q = db.Q(with_identity ? (pg ? kPgWithIdentity : kWithIdentity) : (pg ? kPgPlain : kPlain));
    if (!q.ok()) return q.status();
    q.value()->Bind(1, node).Bind(2, since_ms).Bind(3, static_cast<int64_t>(limit));
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows;
    return json{{"samples", std::move(rows).value()}};
  });
}

Result<json> HistoryQueries::Probes(const std::optional<std::string>& src, const std::optional<std::string>& dst,
                           int64_t since_ms, int64_t until_ms, int limit) {
  // With a source, its range of probe_summaries_src_time (the target is
  // checked in the index); without one, the time range of all sources.
  static constexpr char kOfSource[] = PROBE_COLUMNS
      "FROM probe_summaries WHERE src = ?1 AND (CAST(?2 AS TEXT) IS NULL OR dst = ?2) AND interval_end >= ?3 "
      "AND interval_end <= ?4 ORDER BY interval_end, id LIMIT ?5";
  static constexpr char kOfAll[] = PROBE_COLUMNS
      "FROM probe_summaries WHERE CAST(?1 AS TEXT) IS NULL AND (CAST(?2 AS TEXT) IS NULL OR dst = ?2) AND interval_end >= ?3 "
      "AND interval_end <= ?4 ORDER BY interval_end, id LIMIT ?5";
  return History([&](SqlConn& db) -> Result<json> {
    auto q = db.Q(src ? kOfSource : kOfAll);
    if (!q.ok()) return q.status();
    q.value()->Bind(1, src).Bind(2, dst).Bind(3, since_ms).Bind(4, until_ms).Bind(5, static_cast<int64_t>(limit));
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows;
    return json{{"probes", std::move(rows).value()}};
  });
}

Result<json> HistoryQueries::ProbeRollups(bool hourly, const std::optional<std::string>& src,
                                 const std::optional<std::string>& dst, int64_t since_ms, int64_t until_ms, int limit) {
#define ROLLUP_COLUMNS(period)                                                                                     \
  "SELECT src, dst, transport, " period " AS start_ms, intervals, sent, received, lost, "                          \
  "CASE WHEN sent > 0 THEN CAST(lost AS REAL) / sent END AS loss_ratio, error_count, "                            \
  "CASE WHEN rtt_p50_n > 0 THEN rtt_p50_sum / rtt_p50_n END AS rtt_p50_mean_us, rtt_p99_max AS rtt_p99_max_us, "   \
  "rtt_max AS rtt_max_us "
  // "src = ?1" when a source is given: then its range of the key (src, period, ...).
#define ROLLUP_QUERY(table, period, source)                                                              \
  ROLLUP_COLUMNS(period) "FROM " table " WHERE " source " AND (CAST(?2 AS TEXT) IS NULL OR dst = ?2) AND " period " >= ?3 " \
                         "AND " period " <= ?4 ORDER BY " period ", src, dst, transport LIMIT ?5"
  static constexpr char kHourly[] = ROLLUP_QUERY("probe_hourly", "hour", "CAST(?1 AS TEXT) IS NULL");
  static constexpr char kHourlyOfSource[] = ROLLUP_QUERY("probe_hourly", "hour", "src = ?1");
  static constexpr char kMinute[] = ROLLUP_QUERY("probe_minute", "minute", "CAST(?1 AS TEXT) IS NULL");
  static constexpr char kMinuteOfSource[] = ROLLUP_QUERY("probe_minute", "minute", "src = ?1");
#undef ROLLUP_QUERY
#undef ROLLUP_COLUMNS
  return History([&](SqlConn& db) -> Result<json> {
    auto q = db.Q(hourly ? (src ? kHourlyOfSource : kHourly) : (src ? kMinuteOfSource : kMinute));
    if (!q.ok()) return q.status();
    q.value()->Bind(1, src).Bind(2, dst).Bind(3, since_ms).Bind(4, until_ms).Bind(5, static_cast<int64_t>(limit));
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows;
    return json{{"resolution", hourly ? "hour" : "minute"}, {"rollups", std::move(rows).value()}};
  });
}

Result<json> HistoryQueries::Events(bool open_only, const std::optional<std::string>& kind,
                           const std::optional<std::string>& node, int limit) {
  return History([&](SqlConn& db) -> Result<json> {
    auto q = db.Q(EVENT_COLUMNS "WHERE (?1 = 0 OR ended_at IS NULL) AND (CAST(?2 AS TEXT) IS NULL OR kind = ?2) "
                                      "AND (CAST(?3 AS TEXT) IS NULL OR node = ?3 OR peer = ?3) ORDER BY started_at DESC, id DESC "
                                      "LIMIT ?4");
    if (!q.ok()) return q.status();
    q.value()->Bind(1, static_cast<int64_t>(open_only ? 1 : 0)).Bind(2, kind).Bind(3, node);
    q.value()->Bind(4, static_cast<int64_t>(limit));
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows;
    json events = std::move(rows).value();
    AddOpen(&events);
    return json{{"events", events}};
  });
}

}  // namespace rdmascope::collector
