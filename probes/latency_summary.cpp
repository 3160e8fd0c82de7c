#include "probes/latency_summary.h"

#include <algorithm>
#include <cmath>

#include "probes/probe_timing.h"

namespace rdmascope::probes {

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  if (q <= 0) return sorted.front();
  size_t rank = size_t(std::ceil(q * double(sorted.size())));
  if (rank < 1) rank = 1;
  if (rank > sorted.size()) rank = sorted.size();
  return sorted[rank - 1];
}

LatencyStats ComputeStats(std::vector<double> values) {
  LatencyStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  s.min = values.front();
  s.max = values.back();
  double sum = 0;
  for (double v : values) sum += v;
  s.avg = sum / double(values.size());
  s.p50 = Percentile(values, 0.50);
  s.p90 = Percentile(values, 0.90);
  s.p99 = Percentile(values, 0.99);
  s.p999 = Percentile(values, 0.999);
  return s;
}

ProbeSummary Summarize(const std::vector<ProbeSample>& samples,
                       const std::vector<std::string>& error_keys) {
  ProbeSummary sum;
  std::vector<double> rtt, net, resp, rd, cold;
  bool primers = false;
  for (const auto& s : samples) {
    ++sum.sent;
    primers = primers || s.primer;
    if (!s.received) continue;
    ++sum.received;
    if (s.primer) {
      cold.push_back(s.rtt_us);
      continue;
    }
    rtt.push_back(s.rtt_us);
    if (s.responder_us) {
      resp.push_back(*s.responder_us);
      net.push_back(NetworkUs(s.rtt_us, *s.responder_us));
    }
    if (s.read_us) rd.push_back(*s.read_us);
  }
  sum.lost = sum.sent - sum.received;
  sum.loss_ratio = sum.sent ? double(sum.lost) / double(sum.sent) : 0;
  sum.rtt = ComputeStats(rtt);
  if (!resp.empty()) {
    sum.network = ComputeStats(net);
    sum.responder = ComputeStats(resp);
  }
  if (!rd.empty()) sum.read = ComputeStats(rd);
  if (primers) sum.cold = ComputeStats(cold);
  for (const auto& k : error_keys) ++sum.errors_by_status[k];
  return sum;
}

}  // namespace rdmascope::probes
