#include "collector/metrics/metrics_hygiene.h"

#include <set>

#include "common/wc_status.h"

namespace rdmascope::collector {

using nlohmann::json;

std::string BoundedWcStatus(const std::string& status) {
  if (status == "PROBE_DEADLINE" || status == "CONNECT") return status;
  if (const WcStatusInfo* info = FindWcStatus(status)) return std::string(info->short_name);
  return "OTHER";
}

namespace {

void EraseRowsOf(json& snapshot, const char* part, const char* node_key, const std::set<std::string>& dropped) {
  if (!snapshot.contains(part)) return;
  json& rows = snapshot[part];
  if (!rows.is_array()) return;
  json kept = json::array();
  for (json& r : rows)
    if (!r.contains(node_key) || !r[node_key].is_string() || !dropped.count(r[node_key].get<std::string>()))
      kept.push_back(std::move(r));
  rows = std::move(kept);
}

}  // namespace

std::set<std::string> ApplyNodeStaleness(json& snapshot, int64_t now_ms, int64_t stale_after_ms, int64_t drop_after_ms) {
  if (!snapshot.contains("nodes") || !snapshot["nodes"].is_array()) return {};
  std::set<std::string> dropped;
  json kept = json::array();
  for (json& n : snapshot["nodes"]) {
    const int64_t silent = now_ms - n.value("last_report_at", int64_t{0});
    if (drop_after_ms > 0 && silent > drop_after_ms) {
      dropped.insert(n.value("name", std::string()));
      continue;
    }
    n["stale"] = silent > stale_after_ms;
    kept.push_back(std::move(n));
  }
  snapshot["nodes"] = std::move(kept);
  if (dropped.empty()) return dropped;
  EraseRowsOf(snapshot, "ports", "node", dropped);
  EraseRowsOf(snapshot, "counters", "node", dropped);
  EraseRowsOf(snapshot, "wc_totals", "node", dropped);
  EraseRowsOf(snapshot, "probe_nodes", "src", dropped);
  EraseRowsOf(snapshot, "worst_pairs", "src", dropped);
  return dropped;
}

}  // namespace rdmascope::collector
