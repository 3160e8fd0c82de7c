// Latency statistics and per-target probe summaries.
//
// Contract: percentiles use the nearest-rank method on the sorted samples
// (p50 of {1,2,3,4} is 2); every statistic of an empty sample set is 0 with
// count 0. Loss ratio = lost / sent (0 when nothing was sent). A primer
// (the first probe of a burst, which wakes the responder) counts as sent,
// received or lost like any probe, but its RTT goes to `cold` only, never to
// rtt, network, responder or read: those describe the path, not wake-ups.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmascope::probes {

struct LatencyStats {
  size_t count = 0;
  double min = 0, avg = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};

// Nearest-rank percentile of already sorted values; q in (0, 1].
double Percentile(const std::vector<double>& sorted, double q);
LatencyStats ComputeStats(std::vector<double> values);

// One probe's outcome, times in microseconds.
struct ProbeSample {
  bool received = false;
  double rtt_us = 0;
  std::optional<double> responder_us;  // the responder's receive->send delay (T4 - T3)
  std::optional<double> read_us;       // RC: RDMA READ completion time
  bool primer = false;                 // first of its burst (ProberOptions::burst)
};

struct ProbeSummary {
  uint64_t sent = 0;
  uint64_t received = 0;
  uint64_t lost = 0;
  double loss_ratio = 0;
  LatencyStats rtt;
  std::optional<LatencyStats> network;    // rtt - responder delay (UD and RC)
  std::optional<LatencyStats> responder;  // UD and RC
  std::optional<LatencyStats> read;       // RC
  std::optional<LatencyStats> cold;       // the primers' RTT (absent without primers)
  std::map<std::string, uint64_t> errors_by_status;  // "RETRY_EXC_ERR (12)" -> count
};

// Builds the summary of one interval from its samples and error names.
ProbeSummary Summarize(const std::vector<ProbeSample>& samples,
                       const std::vector<std::string>& error_keys);

}  // namespace rdmascope::probes
