// The store's reads for the API (JSON shapes in collector/http/api_queries.cpp
// and the README's endpoint table).
//
// Contract: every query reads on a read-only connection of its own
// (WriterDb::History), never under the writer's lock, and stops at the query
// deadline. Rows become JSON objects keyed by column name (the SQL aliases
// are the API's field names); JSON-valued columns are parsed. Lists end after
// `limit` rows; the lists of Nodes, Ports, FabricNodes and FabricLinks then
// say "truncated": true.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "collector/store/writer_db.h"

namespace rdmascope::collector {

class HistoryQueries {
 public:
  explicit HistoryQueries(WriterDb& w) : w_(w), options_(w.options()) {}

  static constexpr int kListLimit = 100000;
  Result<nlohmann::json> Nodes(int64_t now_ms, int64_t stale_after_ms, int limit = kListLimit);
  Result<std::optional<nlohmann::json>> Node(const std::string& name, int64_t now_ms, int64_t stale_after_ms);
  Result<nlohmann::json> Ports(const std::optional<std::string>& node, int limit = kListLimit);
  // The same answer as JSON text written row by row (GET /api/v1/ports, the
  // largest list: it costs about its text, not a value per field).
  Result<std::string> PortsText(const std::optional<std::string>& node, int limit = kListLimit);
  // with_identity: each sample also names the boot of its report (boot_id)
  // and the instance of its device (instance); null: unknown.
  Result<nlohmann::json> Counters(const std::optional<std::string>& node, int64_t since_ms, int limit,
                                  bool with_identity = false);
  Result<nlohmann::json> Probes(const std::optional<std::string>& src, const std::optional<std::string>& dst,
                                int64_t since_ms, int64_t until_ms, int limit);
  // Rollup rows of probe_minute (hourly = false) or probe_hourly whose period
  // starts in [since_ms, until_ms], oldest first: {"rollups":[...]}.
  Result<nlohmann::json> ProbeRollups(bool hourly, const std::optional<std::string>& src,
                                      const std::optional<std::string>& dst, int64_t since_ms, int64_t until_ms,
                                      int limit);
  Result<nlohmann::json> Events(bool open_only, const std::optional<std::string>& kind,
                                const std::optional<std::string>& node, int limit);
  // The fabric as sweeps and neighbour lookups saw it (history_fabric.cpp):
  // {"nodes":[...with "ports"]}, {"links":[...]}, {"ports":[over threshold],"events":[open link events]}.
  // FabricErrors: at most `limit` ports over a threshold and `limit` events.
  Result<nlohmann::json> FabricNodes(int limit = kListLimit);
  Result<nlohmann::json> FabricLinks(int64_t history_since_ms, int limit = kListLimit);
  Result<nlohmann::json> FabricErrors(int limit = kListLimit);
  // The switch ports at the other end of a node's (nullopt: every node's) IB
  // ports, as an array of at most `limit` rows.
  Result<nlohmann::json> NodeNeighbours(const std::optional<std::string>& node, int limit = kListLimit);

 private:
  Result<nlohmann::json> History(const std::function<Result<nlohmann::json>(SqlConn&)>& fn) { return w_.History(fn); }
  Result<std::string> HistoryText(const std::function<Result<std::string>(SqlConn&)>& fn) { return w_.HistoryText(fn); }
  WriterDb& w_;
  const StoreOptions& options_;
};

}  // namespace rdmascope::collector
