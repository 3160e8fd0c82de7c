// Fabric queries for the API and the dashboard (shapes in collector/README.md).
#include "collector/store/history_queries.h"
#include "collector/store/store_rows.h"

namespace rdmascope::collector {
namespace {

using json = nlohmann::json;

Result<json> RowsOf(SqlConn& db, const char* sql, const std::function<void(SqlStmt&)>& bind = nullptr) {
  auto q = db.Q(sql);
  if (!q.ok()) return q.status();
  if (bind) bind(*q.value());
  return Rows(*q.value());
}

}  // namespace

Result<json> HistoryQueries::FabricNodes(int limit) {
  return History([&](SqlConn& db) -> Result<json> {
    // The ports of the nodes listed, not of every node.
#define FABRIC_NODES_LISTED "SELECT guid FROM fabric_nodes ORDER BY type DESC, description, guid LIMIT ?1"
    auto bind = [&](SqlStmt& q) { q.Bind(1, static_cast<int64_t>(limit) + 1); };
    auto nodes = RowsOf(db,
                        "SELECT guid, type, description, num_ports, lid, first_seen_at AS first_seen_at_ms, "
                        "last_seen_at AS last_seen_at_ms, seen_by FROM fabric_nodes "
                        "ORDER BY type DESC, description, guid LIMIT ?1",
                        bind);
    if (!nodes.ok()) return nodes.status();
    auto ports = RowsOf(db,
                        "SELECT guid, port, lid, state, phys_state, width, speed, width_supported, speed_supported, "
                        "remote_guid, remote_port, counters AS counters_json, last_seen_at AS last_seen_at_ms "
                        "FROM fabric_ports WHERE guid IN (" FABRIC_NODES_LISTED ") ORDER BY guid, port",
                        bind);
#undef FABRIC_NODES_LISTED
    if (!ports.ok()) return ports.status();
    const bool truncated = TrimToLimit(&nodes.value(), limit);
    std::map<std::string, json> by_guid;
    for (json& p : ports.value()) {
      std::string g = p["guid"].get<std::string>();
      p.erase("guid");
      by_guid[g].push_back(std::move(p));
    }
    for (json& n : nodes.value()) {
      auto it = by_guid.find(n["guid"].get<std::string>());
      n["ports"] = it == by_guid.end() ? json::array() : std::move(it->second);
    }
    return json{{"nodes", std::move(nodes).value()}, {"truncated", truncated}};
  });
}

Result<json> HistoryQueries::FabricLinks(int64_t history_since_ms, int limit) {
  return History([&](SqlConn& db) -> Result<json> {
    auto links = RowsOf(
        db,
        "SELECT l.a_guid, l.a_port, na.description AS a_description, na.type AS a_type, "
        "l.b_guid, l.b_port, nb.description AS b_description, nb.type AS b_type, "
        "pa.state AS a_state, pb.state AS b_state, pa.width, pa.speed, "
        "l.first_seen_at AS first_seen_at_ms, l.last_seen_at AS last_seen_at_ms, l.gone_at AS gone_at_ms, "
        "(SELECT COUNT(*) FROM events e WHERE e.ended_at IS NULL AND e.kind IN ('link_down', 'link_degraded') AND "
        "   e.key LIKE '%|' || l.a_guid || '|' || l.a_port || '|' || l.b_guid || '|' || l.b_port) + "
        "(SELECT COUNT(*) FROM events e WHERE e.ended_at IS NULL AND e.kind = 'link_errors' AND "
        "   (e.key = 'link_errors|' || l.a_guid || '|' || l.a_port OR e.key = 'link_errors|' || l.b_guid || '|' || "
        "l.b_port)) AS open_events "
        "FROM fabric_links l LEFT JOIN fabric_nodes na ON na.guid = l.a_guid "
        "LEFT JOIN fabric_nodes nb ON nb.guid = l.b_guid "
        "LEFT JOIN fabric_ports pa ON pa.guid = l.a_guid AND pa.port = l.a_port "
        "LEFT JOIN fabric_ports pb ON pb.guid = l.b_guid AND pb.port = l.b_port "
        "ORDER BY (l.gone_at IS NULL), open_events DESC, na.description, l.a_port LIMIT ?1",
        [&](SqlStmt& q) { q.Bind(1, static_cast<int64_t>(limit) + 1); });
    if (!links.ok()) return links.status();
    auto history = RowsOf(db,
                          "SELECT kind, key, node, peer, status, detail, started_at AS started_at_ms, "
                          "ended_at AS ended_at_ms FROM events WHERE kind IN ('link_down', 'link_errors', "
                          "'link_degraded') AND (ended_at IS NULL OR ended_at >= ?1) ORDER BY started_at DESC LIMIT 500",
                          [&](SqlStmt& q) { q.Bind(1, history_since_ms); });
    if (!history.ok()) return history.status();
    const bool truncated = TrimToLimit(&links.value(), limit);
    return json{{"links", std::move(links).value()}, {"history", std::move(history).value()}, {"truncated", truncated}};
  });
}

Result<json> HistoryQueries::FabricErrors(int limit) {
  return History([&](SqlConn& db) -> Result<json> {
    auto ports = RowsOf(db,
                        "SELECT p.guid, n.description, n.type, p.port, p.state, p.remote_guid, p.remote_port, "
                        "r.description AS remote_description, p.counters AS counters_json, "
                        "p.last_seen_at AS last_seen_at_ms FROM fabric_ports p "
                        "LEFT JOIN fabric_nodes n ON n.guid = p.guid LEFT JOIN fabric_nodes r ON r.guid = p.remote_guid "
                        "WHERE p.counters <> '{}'");
    if (!ports.ok()) return ports.status();
    json over = json::array();
    for (const json& p : ports.value()) {
      const json& c = p["counters"];
      if (!c.is_object()) continue;
      for (const auto& [name, threshold] : options_.thresholds) {
        auto it = c.find(name);
        if (it == c.end() || !it->is_number_unsigned() || it->get<uint64_t>() < threshold) continue;
        if (over.size() >= static_cast<size_t>(limit)) break;
        json f = p;
        f.erase("counters");
        f["counter"] = name;
        f["value"] = *it;
        f["threshold"] = threshold;
        over.push_back(std::move(f));
      }
    }
    auto events = RowsOf(db,
                         "SELECT kind, key, node, peer, device AS guid, port, status, detail, count, "
                         "started_at AS started_at_ms, last_seen_at AS last_seen_at_ms FROM events "
                         "WHERE ended_at IS NULL AND kind IN ('link_down', 'link_errors', 'link_degraded') "
                         "ORDER BY started_at DESC LIMIT ?1",
                         [&](SqlStmt& q) { q.Bind(1, static_cast<int64_t>(limit)); });
    if (!events.ok()) return events.status();
    return json{{"ports", std::move(over)}, {"events", std::move(events).value()}};
  });
}

Result<json> HistoryQueries::NodeNeighbours(const std::optional<std::string>& node, int limit) {
  return History([&](SqlConn& db) -> Result<json> {
    return RowsOf(db,
                  "SELECT node, device, port, switch_guid, switch_port, switch_type, switch_description, state, "
                  "width, speed, counters AS counters_json, at AS at_ms FROM node_neighbours "
                  "WHERE CAST(?1 AS TEXT) IS NULL OR node = ?1 ORDER BY node, device, port LIMIT ?2",
                  [&](SqlStmt& q) { q.Bind(1, node).Bind(2, static_cast<int64_t>(limit)); });
  });
}

}  // namespace rdmascope::collector
