// Answers from a read snapshot view, shaped as the SQL they replace
// (read_model.cpp). Pairs are the newest summary per
// (src, dst, rail, transport). The matrix is read_snapshot_matrix.cpp.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>

#include "collector/readmodel/read_snapshot.h"

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
  json out = {{"nodes", json::array()}, {"wc_totals", json::array()}, {"probe_nodes", json::array()},
              {"worst_pairs", json::array()}};
  json& node_rows = out["nodes"];
  json& wc_totals = out["wc_totals"];
  for (const auto& n : v.nodes) {
    for (const json& r : n->wc_totals) wc_totals.push_back(r);
    node_rows.push_back({{"name", n->name}, {"last_report_at", n->last_report_at}});
  }
  out["events_open"] = *v.events_open;
  for (const auto& [k, part] : v.fabric->items()) out[k] = part;

  // Per (src, transport), over each pair's newest row in the window: the
  // worst target's quantiles, the RTT count and sum, probes sent and lost;
  // and the candidates for the worst pairs. A node whose summary covers the
  // window gives its summary (read_snapshot_metrics.cpp); another is read
  // pair by pair.
  struct PtrPairHash {
    size_t operator()(const std::pair<const std::string*, const std::string*>& k) const {
      return HashInterned(k.first, k.second);
    }
  };
  std::unordered_map<std::pair<const std::string*, const std::string*>, ProbeAgg, PtrPairHash> per_node;
  std::vector<const ProbeRow*> with_p99;
  const size_t n_worst = static_cast<size_t>(std::max(worst_pairs, 0));
  for (const auto& node : v.nodes) {
    const MetricsSummary& m = node->metrics;
    const bool covered = m.Covers(probes_since_ms);
    if (covered) {
      for (const auto& [transport, agg] : m.by_transport) per_node[{m.src, transport}].Merge(agg);
      if (n_worst <= MetricsSummary::kWorstKept) {
        with_p99.insert(with_p99.end(), m.worst.begin(), m.worst.begin() + std::min(m.worst.size(), n_worst));
        continue;
      }
    }
    for (const auto& [key, e] : node->pairs) {
      const ProbeRow* r = e.newest.get();
      if (!r || r->interval_end < probes_since_ms) continue;
      if (!covered) per_node[{r->src, r->transport}].Add(*r);
      if (!std::isnan(r->rtt_p99)) with_p99.push_back(r);
    }
  }
  std::vector<std::pair<std::pair<const std::string*, const std::string*>, const ProbeAgg*>> ordered;
  ordered.reserve(per_node.size());
  for (const auto& [key, a] : per_node) ordered.push_back({key, &a});
  std::sort(ordered.begin(), ordered.end(), [](const auto& x, const auto& y) {
    return std::tie(*x.first.first, *x.first.second) < std::tie(*y.first.first, *y.first.second);
  });
  json& nodes = out["probe_nodes"];
  for (const auto& [key, ap] : ordered) {
    const ProbeAgg& a = *ap;
    nodes.push_back({{"src", *key.first}, {"transport", *key.second}, {"rtt_p50_max", Real(a.q50)},
                     {"rtt_p90_max", Real(a.q90)}, {"rtt_p99_max", Real(a.q99)}, {"rtt_count", a.rtt_count},
                     {"rtt_sum_us", a.rtt_sum_us}, {"sent", a.sent}, {"lost", a.lost}});
  }
  // The worst pairs by p99, ties in (src, transport, dst) order; only these are ordered.
  const size_t n = std::min(with_p99.size(), n_worst);
  std::partial_sort(with_p99.begin(), with_p99.begin() + static_cast<std::ptrdiff_t>(n), with_p99.end(),
                    WorseForMetrics);
  json& worst = out["worst_pairs"];
  for (size_t i = 0; i < n; ++i) {
    const ProbeRow& r = *with_p99[i];
    worst.push_back({{"src", *r.src}, {"dst", *r.dst}, {"transport", *r.transport}, {"rtt_p99", r.rtt_p99}});
  }
  return out;
}

}  // namespace rdmascope::collector
