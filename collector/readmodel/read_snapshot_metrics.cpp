// The per-node summary /metrics reads instead of every pair (read_snapshot.h):
// a fleet has hundreds of thousands of pairs, and visiting each at every
// scrape cost a few hundred milliseconds; the writer summarises a node's
// 100-odd pairs when it publishes the node. Its sums saturate at the int64_t
// bounds (the validator's bounds keep real ones far below).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "collector/readmodel/read_snapshot.h"
#include "collector/core/sat_int.h"

namespace rdmascope::collector {

namespace {

double WorseOf(double have, double v) { return std::isnan(v) ? have : (std::isnan(have) ? v : std::max(have, v)); }

}  // namespace

ProbeAgg::ProbeAgg() : q50(NAN), q90(NAN), q99(NAN) {}

void ProbeAgg::Add(const ProbeRow& r) {
  q50 = WorseOf(q50, r.rtt_p50);
  q90 = WorseOf(q90, r.rtt_p90);
  q99 = WorseOf(q99, r.rtt_p99);
  if (r.rtt_count != ProbeRow::kNullInt && !std::isnan(r.rtt_avg)) {
    rtt_count = SatAdd(rtt_count, r.rtt_count);
    rtt_sum_us += static_cast<double>(r.rtt_count) * r.rtt_avg;
  }
  sent = SatAdd(sent, r.sent);
  lost = SatAdd(lost, r.lost);
}

void ProbeAgg::Merge(const ProbeAgg& o) {
  q50 = WorseOf(q50, o.q50);
  q90 = WorseOf(q90, o.q90);
  q99 = WorseOf(q99, o.q99);
  rtt_count = SatAdd(rtt_count, o.rtt_count);
  rtt_sum_us += o.rtt_sum_us;
  sent = SatAdd(sent, o.sent);
  lost = SatAdd(lost, o.lost);
}

bool WorseForMetrics(const ProbeRow* a, const ProbeRow* b) {
  if (a->rtt_p99 != b->rtt_p99) return a->rtt_p99 > b->rtt_p99;
  return std::tie(*a->src, *a->transport, *a->dst) < std::tie(*b->src, *b->transport, *b->dst);
}

void NodeState::SummariseForMetrics(int64_t horizon_ms) {
  MetricsSummary m;
  m.horizon_ms = horizon_ms;
  for (const auto& [key, e] : pairs)
    if (e.newest) m.newest_end = std::max(m.newest_end, e.newest->interval_end);
  if (m.newest_end != INT64_MIN) {
    const int64_t from = SatSub(m.newest_end, horizon_ms);
    for (const auto& [key, e] : pairs) {
      if (!e.newest || e.newest->interval_end < from) continue;
      const ProbeRow& r = *e.newest;
      m.src = r.src;
      m.oldest_included_end = std::min(m.oldest_included_end, r.interval_end);
      auto agg = std::find_if(m.by_transport.begin(), m.by_transport.end(),
                              [&r](const auto& t) { return t.first == r.transport; });
      if (agg == m.by_transport.end()) agg = m.by_transport.insert(m.by_transport.end(), {r.transport, ProbeAgg()});
      agg->second.Add(r);
      if (!std::isnan(r.rtt_p99)) m.worst.push_back(&r);
    }
    std::sort(m.by_transport.begin(), m.by_transport.end(),
              [](const auto& a, const auto& b) { return *a.first < *b.first; });
    const size_t kept = std::min(m.worst.size(), MetricsSummary::kWorstKept);
    std::partial_sort(m.worst.begin(), m.worst.begin() + static_cast<std::ptrdiff_t>(kept), m.worst.end(),
                      WorseForMetrics);
    m.worst.resize(kept);
  }
  metrics = std::move(m);
}

}  // namespace rdmascope::collector
