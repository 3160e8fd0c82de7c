// Answers from a read snapshot view, shaped as the SQL they replace
// (store_matrix.cpp, store_snapshot.cpp, store_query.cpp). Pairs are the
// newest summary per (src, dst, rail, transport).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "collector/read_snapshot.h"

namespace rdmascope::collector {

using nlohmann::json;

namespace {

json Real(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

void AppendJsonInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// A double as JSON: shortest round-trip digits, ".0" on whole numbers (as
// the JSON library writes them), null for NaN and infinities.
void AppendJsonReal(std::string* out, double v) {
  if (!std::isfinite(v)) {
    *out += "null";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  const std::string_view digits(buf, static_cast<size_t>(r.ptr - buf));
  out->append(digits);
  if (digits.find_first_of(".e") == std::string_view::npos) *out += ".0";
}

// Every pair's newest row ending at or after since_ms, with its source node.
std::vector<const ProbeRow*> NewestSince(const ReadSnapshot::View& v, int64_t since_ms) {
  std::vector<const ProbeRow*> out;
  for (const auto& n : v.nodes)
    for (const auto& [key, e] : n->pairs)
      if (e.newest && e.newest->interval_end >= since_ms) out.push_back(e.newest.get());
  return out;
}

}  // namespace

std::string SnapshotMatrixText(const ReadSnapshot::View& v, int64_t since_ms, int max_rows,
                               const std::optional<std::string>& rail) {
  int64_t newest = 0;
  double longest = 0;
  for (const auto& n : v.nodes) {
    newest = std::max(newest, n->last_generated_at);
    if (n->interval_s) longest = std::max(longest, *n->interval_s);
  }
  if (since_ms < 0) since_ms = newest - std::max<int64_t>(60000, static_cast<int64_t>(3 * longest * 1000));

  // The newest run summary per (src, dst, transport) over the rails asked
  // for, in (src, dst, transport) order: nodes come sorted by name and a
  // node's pairs are its own (src), so each node's rows are sorted alone;
  // interned strings make the pointers a key.
  struct Key {
    const std::string *src, *dst, *transport;
    bool operator==(const Key& o) const { return src == o.src && dst == o.dst && transport == o.transport; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return HashInterned(k.src, k.dst, k.transport); }
  };
  auto by_name = [](const ProbeRow* a, const ProbeRow* b) {
    return std::tie(*a->src, *a->dst, *a->transport) < std::tie(*b->src, *b->dst, *b->transport);
  };
  std::vector<const ProbeRow*> best;
  std::unordered_map<Key, const ProbeRow*, KeyHash> of_node;
  for (const auto& n : v.nodes) {
    of_node.clear();
    for (const auto& [key, e] : n->pairs) {
      const ProbeRow* r = e.newest_run.get();
      if (!r || r->interval_end < since_ms) continue;
      if (rail && (!r->rail || *r->rail != *rail)) continue;
      const ProbeRow*& slot = of_node[{r->src, r->dst, r->transport}];
      if (!slot || r->interval_end > slot->interval_end) slot = r;
    }
    const size_t first = best.size();
    for (const auto& [key, r] : of_node) best.push_back(r);
    std::sort(best.begin() + static_cast<std::ptrdiff_t>(first), best.end(), by_name);
  }
  if (!std::is_sorted(best.begin(), best.end(), by_name)) std::sort(best.begin(), best.end(), by_name);
  const bool truncated = static_cast<int64_t>(best.size()) > max_rows;
  if (truncated) best.resize(static_cast<size_t>(std::max(max_rows, 0)));

  // Every node that reported, plus any target that never did, by name.
  std::map<std::string_view, json> nodes;
  for (const auto& n : v.nodes)
    nodes.emplace_hint(nodes.end(), n->name,
                       json{{"name", n->name},
                            {"labels", n->labels.is_object() ? n->labels : json(nullptr)},
                            {"interval_s", n->interval_s ? json(*n->interval_s) : json(nullptr)},
                            {"last_generated_at_ms", n->last_generated_at}});
  for (const ProbeRow* r : best)
    for (const std::string* name : {r->src, r->dst})
      if (!nodes.count(*name))
        nodes[*name] = {{"name", *name}, {"labels", nullptr}, {"interval_s", nullptr}, {"last_generated_at_ms", nullptr}};
  std::unordered_map<std::string_view, int> index;
  index.reserve(nodes.size());
  json node_list = json::array();
  for (auto& [name, n] : nodes) {
    index[name] = static_cast<int>(node_list.size());
    node_list.push_back(std::move(n));
  }

  // The rows are written as text: one JSON value per row would cost more
  // than everything above (80,000 rows at 2,000 nodes x 40 pairs).
  std::string out = R"({"columns":["src","dst","transport","interval_end_ms","rtt_p50_us","rtt_p99_us",)"
                    R"("loss_ratio","error_count","errors_by_status"],"nodes":)";
  out += node_list.dump();
  out += R"(,"rows":[)";
  out.reserve(out.size() + best.size() * 64);
  std::unordered_map<const std::string*, std::string> quoted;  // interned transport -> JSON string
  for (size_t i = 0; i < best.size(); ++i) {
    const ProbeRow& r = *best[i];
    std::string& t = quoted[r.transport];
    if (t.empty()) t = json(*r.transport).dump();
    out += i ? ",[" : "[";
    AppendJsonInt(&out, index[*r.src]);
    out += ',';
    AppendJsonInt(&out, index[*r.dst]);
    out += ',';
    out += t;
    out += ',';
    AppendJsonInt(&out, r.interval_end);
    for (double x : {r.rtt_p50, r.rtt_p99, r.loss_ratio}) {
      out += ',';
      AppendJsonReal(&out, x);
    }
    out += ',';
    AppendJsonInt(&out, r.error_count);
    out += ',';
    if (r.errors_by_status == "{}") {
      out += "{}";
    } else {
      json by_status = json::parse(r.errors_by_status, nullptr, /*allow_exceptions=*/false);
      out += by_status.is_object() ? by_status.dump() : "{}";
    }
    out += ']';
  }
  out += R"(],"since_ms":)";
  AppendJsonInt(&out, since_ms);
  out += truncated ? R"(,"truncated":true})" : R"(,"truncated":false})";
  return out;
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
