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

json SnapshotMetricsRows(const ReadSnapshot::View& v, int64_t probes_since_ms, int worst_pairs) {
  json out = {{"ports", json::array()}, {"counters", json::array()}, {"nodes", json::array()},
              {"wc_totals", json::array()}, {"probe_nodes", json::array()}, {"worst_pairs", json::array()}};
  for (const auto& n : v.nodes) {
    static const std::pair<const char*, json NodeState::*> kParts[] = {
        {"ports", &NodeState::ports}, {"counters", &NodeState::counters}, {"wc_totals", &NodeState::wc_totals}};
    for (const auto& [part, member] : kParts)
      for (const json& r : (*n).*member) out[part].push_back(r);
    out["nodes"].push_back({{"name", n->name}, {"last_report_at", n->last_report_at}});
  }
  out["events_open"] = *v.events_open;
  for (const auto& [k, part] : v.fabric->items()) out[k] = part;

  // Per (src, transport), over each pair's newest row in the window: the
  // worst target's quantiles, the RTT count and sum, probes sent and lost.
  // Built from the rows themselves: a fleet has hundreds of thousands of
  // pairs, and a JSON object per pair cost seconds per scrape.
  struct Agg {
    double q50 = NAN, q90 = NAN, q99 = NAN, rtt_sum_us = 0;
    int64_t rtt_count = 0, sent = 0, lost = 0;
  };
  auto worse_of = [](double have, double v) { return std::isnan(v) ? have : (std::isnan(have) ? v : std::max(have, v)); };
  std::map<std::pair<std::string, std::string>, Agg> per_node;
  std::vector<const ProbeRow*> with_p99;
  for (const ProbeRow* r : NewestSince(v, probes_since_ms)) {
    Agg& a = per_node[{*r->src, *r->transport}];
    a.q50 = worse_of(a.q50, r->rtt_p50);
    a.q90 = worse_of(a.q90, r->rtt_p90);
    a.q99 = worse_of(a.q99, r->rtt_p99);
    if (r->rtt_count != ProbeRow::kNullInt && !std::isnan(r->rtt_avg)) {
      a.rtt_count += r->rtt_count;
      a.rtt_sum_us += static_cast<double>(r->rtt_count) * r->rtt_avg;
    }
    a.sent += r->sent;
    a.lost += r->lost;
    if (!std::isnan(r->rtt_p99)) with_p99.push_back(r);
  }
  json& nodes = out["probe_nodes"];
  for (const auto& [key, a] : per_node)
    nodes.push_back({{"src", key.first}, {"transport", key.second}, {"rtt_p50_max", Real(a.q50)},
                     {"rtt_p90_max", Real(a.q90)}, {"rtt_p99_max", Real(a.q99)}, {"rtt_count", a.rtt_count},
                     {"rtt_sum_us", a.rtt_sum_us}, {"sent", a.sent}, {"lost", a.lost}});
  // The worst pairs by p99, ties in (src, transport, dst) order; only these are ordered.
  auto worse = [](const ProbeRow* a, const ProbeRow* b) {
    if (a->rtt_p99 != b->rtt_p99) return a->rtt_p99 > b->rtt_p99;
    return std::tie(*a->src, *a->transport, *a->dst) < std::tie(*b->src, *b->transport, *b->dst);
  };
  const size_t n = std::min(with_p99.size(), static_cast<size_t>(std::max(worst_pairs, 0)));
  std::partial_sort(with_p99.begin(), with_p99.begin() + static_cast<std::ptrdiff_t>(n), with_p99.end(), worse);
  json& worst = out["worst_pairs"];
  for (size_t i = 0; i < n; ++i) {
    const ProbeRow& r = *with_p99[i];
    worst.push_back({{"src", *r.src}, {"dst", *r.dst}, {"transport", *r.transport}, {"rtt_p99", r.rtt_p99}});
  }
  return out;
}

}  // namespace rdmascope::collector
