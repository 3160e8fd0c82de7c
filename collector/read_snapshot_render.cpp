// Answers from a read snapshot view, shaped as the SQL they replace
// (store_matrix.cpp, store_snapshot.cpp, store_query.cpp). Pairs are the
// newest summary per (src, dst, rail, transport).
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "collector/read_snapshot.h"

namespace rdmascope::collector {

using nlohmann::json;

namespace {

json Real(double v) { return std::isnan(v) ? json(nullptr) : json(v); }
json Int(int64_t v) { return v == ProbeRow::kNullInt ? json(nullptr) : json(v); }

// Every pair's newest row ending at or after since_ms, with its source node.
std::vector<const ProbeRow*> NewestSince(const ReadSnapshot::View& v, int64_t since_ms) {
  std::vector<const ProbeRow*> out;
  for (const auto& n : v.nodes)
    for (const auto& [key, e] : n->pairs)
      if (e.newest && e.newest->interval_end >= since_ms) out.push_back(e.newest.get());
  return out;
}

}  // namespace

json SnapshotMatrix(const ReadSnapshot::View& v, int64_t since_ms, int max_rows,
                    const std::optional<std::string>& rail) {
  std::map<std::string, json> nodes;
  int64_t newest = 0;
  double longest = 0;
  for (const auto& n : v.nodes) {
    nodes[n->name] = {{"name", n->name},
                      {"labels", n->labels.is_object() ? n->labels : json(nullptr)},
                      {"interval_s", n->interval_s ? json(*n->interval_s) : json(nullptr)},
                      {"last_generated_at_ms", n->last_generated_at}};
    newest = std::max(newest, n->last_generated_at);
    if (n->interval_s) longest = std::max(longest, *n->interval_s);
  }
  if (since_ms < 0) since_ms = newest - std::max<int64_t>(60000, static_cast<int64_t>(3 * longest * 1000));

  // The newest run summary per (src, dst, transport) over the rails asked for.
  std::map<std::tuple<std::string, std::string, std::string>, const ProbeRow*> best;
  for (const auto& n : v.nodes)
    for (const auto& [key, e] : n->pairs) {
      const ProbeRow* r = e.newest_run.get();
      if (!r || r->interval_end < since_ms) continue;
      if (rail && (!r->rail || *r->rail != *rail)) continue;
      const ProbeRow*& slot = best[{*r->src, *r->dst, *r->transport}];
      if (!slot || r->interval_end > slot->interval_end) slot = r;
    }
  bool truncated = static_cast<int64_t>(best.size()) > max_rows;
  for (const auto& [key, r] : best)
    for (const std::string* name : {r->src, r->dst})
      if (!nodes.count(*name))
        nodes[*name] = {{"name", *name}, {"labels", nullptr}, {"interval_s", nullptr}, {"last_generated_at_ms", nullptr}};
  std::map<std::string, int> index;
  json node_list = json::array();
  for (auto& [name, n] : nodes) {
    index[name] = static_cast<int>(node_list.size());
    node_list.push_back(std::move(n));
  }
  json out_rows = json::array();
  for (const auto& [key, r] : best) {
    if (static_cast<int>(out_rows.size()) == max_rows) break;
    json by_status = json::parse(r->errors_by_status, nullptr, /*allow_exceptions=*/false);
    if (!by_status.is_object()) by_status = json::object();
    out_rows.push_back(json::array({index[*r->src], index[*r->dst], *r->transport, r->interval_end, Real(r->rtt_p50),
                                    Real(r->rtt_p99), Real(r->loss_ratio), r->error_count, std::move(by_status)}));
  }
  return json{{"since_ms", since_ms},
              {"nodes", std::move(node_list)},
              {"columns", {"src", "dst", "transport", "interval_end_ms", "rtt_p50_us", "rtt_p99_us", "loss_ratio",
                           "error_count", "errors_by_status"}},
              {"rows", std::move(out_rows)},
              {"truncated", truncated}};
}

json SnapshotWorstPairs(const ReadSnapshot::View& v, int64_t since_ms, int limit) {
  std::vector<const ProbeRow*> rows = NewestSince(v, since_ms);
  auto zero = [](double x) { return std::isnan(x) ? 0.0 : x; };
  auto worse = [&zero](const ProbeRow* a, const ProbeRow* b) {
    auto ka = std::make_tuple(a->error_count > 0, zero(a->loss_ratio), zero(a->rtt_p99));
    auto kb = std::make_tuple(b->error_count > 0, zero(b->loss_ratio), zero(b->rtt_p99));
    if (ka != kb) return ka > kb;
    return std::tie(*a->src, *a->dst) < std::tie(*b->src, *b->dst);
  };
  size_t n = std::min(rows.size(), static_cast<size_t>(std::max(limit, 0)));
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n), rows.end(), worse);
  json pairs = json::array();
  for (size_t i = 0; i < n; ++i) pairs.push_back(ProbeRowJson(*rows[i]));
  return json{{"pairs", std::move(pairs)}};
}

json SnapshotMetricsRows(const ReadSnapshot::View& v, int64_t probes_since_ms) {
  json out = {{"ports", json::array()}, {"counters", json::array()}, {"nodes", json::array()},
              {"wc_totals", json::array()}, {"pairs", json::array()}};
  for (const auto& n : v.nodes) {
    static const std::pair<const char*, json NodeState::*> kParts[] = {
        {"ports", &NodeState::ports}, {"counters", &NodeState::counters}, {"wc_totals", &NodeState::wc_totals}};
    for (const auto& [part, member] : kParts)
      for (const json& r : (*n).*member) out[part].push_back(r);
    out["nodes"].push_back({{"name", n->name}, {"last_report_at", n->last_report_at}});
  }
  out["events_open"] = *v.events_open;
  for (const auto& [k, part] : v.fabric->items()) out[k] = part;

  std::vector<const ProbeRow*> rows = NewestSince(v, probes_since_ms);
  std::sort(rows.begin(), rows.end(), [](const ProbeRow* a, const ProbeRow* b) {
    return std::tie(*a->src, *a->transport, *a->dst) < std::tie(*b->src, *b->transport, *b->dst);
  });
  json& pairs = out["pairs"];
  for (const ProbeRow* r : rows)
    pairs.push_back({{"src", *r->src}, {"dst", *r->dst}, {"transport", *r->transport}, {"sent", r->sent},
                     {"lost", r->lost}, {"rtt_count", Int(r->rtt_count)}, {"rtt_avg", Real(r->rtt_avg)},
                     {"rtt_p50", Real(r->rtt_p50)}, {"rtt_p90", Real(r->rtt_p90)}, {"rtt_p99", Real(r->rtt_p99)}});
  return out;
}

}  // namespace rdmascope::collector
