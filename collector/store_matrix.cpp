// Store::Matrix: everything the dashboard's latency matrix needs in one
// compact answer (GET /api/v1/matrix).
//
// Contract:
//  - "nodes": every node that reported, plus any probe target that never did,
//    sorted by name: [{"name", "labels" (object or null), "interval_s",
//    "last_generated_at_ms"}].
//  - "rows": the newest summary of each (src, dst, transport) whose newest
//    interval ended at or after since_ms, values in "columns" order; src and dst
//    are indexes into "nodes"; absent values are null. SQLite takes the bare
//    columns from the row holding MAX(interval_end).
//  - since_ms < 0 means "the last three report intervals": the newest
//    generated_at of any node minus max(60 s, 3 x the longest interval_s).
//  - At most max_rows rows; "truncated" tells when more matched.
// About 50 bytes a pair, a tenth of /api/v1/probes.
#include <algorithm>
#include <map>

#include "collector/store.h"

namespace rdmascope::collector {

using nlohmann::json;

Result<json> Store::Matrix(int64_t since_ms, int max_rows, const std::optional<std::string>& rail) {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, json> nodes;
  {
    auto q = Q("SELECT name, labels, interval_s, last_generated_at FROM nodes");
    if (!q.ok()) return q.status();
    Stmt& s = *q.value();
    int64_t newest = 0;
    double longest = 0;
    for (;;) {
      auto r = s.Step();
      if (!r.ok()) {
        s.Reset();
        return r.status();
      }
      if (!r.value()) break;
      json labels = json::parse(s.Text(1), nullptr, /*allow_exceptions=*/false);
      json interval = s.IsNull(2) ? json(nullptr) : json(s.Real(2));
      nodes[s.Text(0)] = {{"name", s.Text(0)}, {"labels", labels.is_object() ? labels : json(nullptr)},
                          {"interval_s", interval}, {"last_generated_at_ms", s.Int(3)}};
      newest = std::max(newest, s.Int(3));
      if (!s.IsNull(2)) longest = std::max(longest, s.Real(2));
    }
    s.Reset();
    if (since_ms < 0) since_ms = newest - std::max<int64_t>(60000, static_cast<int64_t>(3 * longest * 1000));
  }

  auto q = Q("SELECT src, dst, transport, MAX(interval_end), rtt_p50, rtt_p99, loss_ratio, error_count, "
             "errors_by_status FROM probe_summaries WHERE interval_end >= ?1 AND (?3 IS NULL OR rail = ?3) "
             "AND not_run IS NULL GROUP BY src, dst, transport LIMIT ?2");
  if (!q.ok()) return q.status();
  Stmt& s = *q.value();
  s.Bind(1, since_ms).Bind(2, static_cast<int64_t>(max_rows) + 1).Bind(3, rail);
  struct Row {
    std::string src, dst;
    json values;
  };
  std::vector<Row> rows;
  auto real = [&s](int c) { return s.IsNull(c) ? json(nullptr) : json(s.Real(c)); };
  bool truncated = false;
  for (;;) {
    auto r = s.Step();
    if (!r.ok()) {
      s.Reset();
      return r.status();
    }
    if (!r.value()) break;
    if (static_cast<int>(rows.size()) == max_rows) {
      truncated = true;
      break;
    }
    Row row{s.Text(0), s.Text(1), json::array()};
    json by_status = json::parse(s.Text(8), nullptr, /*allow_exceptions=*/false);
    if (!by_status.is_object()) by_status = json::object();
    row.values = json::array({s.Text(2), s.Int(3), real(4), real(5), real(6), s.Int(7), std::move(by_status)});
    rows.push_back(std::move(row));
  }
  s.Reset();

  for (const Row& r : rows)
    for (const std::string* name : {&r.src, &r.dst})
      if (!nodes.count(*name))
        nodes[*name] = {{"name", *name}, {"labels", nullptr}, {"interval_s", nullptr}, {"last_generated_at_ms", nullptr}};
  std::map<std::string, int> index;
  json node_list = json::array();
  for (auto& [name, n] : nodes) {
    index[name] = static_cast<int>(node_list.size());
    node_list.push_back(std::move(n));
  }
  json out_rows = json::array();
  for (Row& r : rows) {
    json row = json::array({index[r.src], index[r.dst]});
    for (json& v : r.values) row.push_back(std::move(v));
    out_rows.push_back(std::move(row));
  }
  return json{{"since_ms", since_ms},
              {"nodes", std::move(node_list)},
              {"columns", {"src", "dst", "transport", "interval_end_ms", "rtt_p50_us", "rtt_p99_us", "loss_ratio",
                           "error_count", "errors_by_status"}},
              {"rows", std::move(out_rows)},
              {"truncated", truncated}};
}

}  // namespace rdmascope::collector
