// A probe summary of a validated report, taken out of its JSON once.
//
// Contract: ExtractProbes() reads a report that ValidateReport() accepted and
// gives, in report order, every value the store writes for each probe, so the
// single writer thread binds values instead of looking members up. It runs on
// the HTTP worker that parsed the report (in parallel with other reports).
// Absent stays absent: a latency object with count 0 measured nothing, and its
// quantiles are nullopt, never 0. On a report the validator did not see it
// still reads without undefined behaviour: a missing required number reads 0,
// numbers beyond int64_t saturate, and the error counts' sums saturate.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

struct WcErrorInput {
  int64_t status = 0;
  std::string status_name;
  std::optional<int64_t> vendor_err;
  std::optional<std::string> opcode, explanation;
  std::optional<double> wall_ms, after_ms;
};

struct ProbeInput {
  std::string target, transport;
  int64_t interval_start = 0, interval_end = 0;
  std::optional<std::string> local_device, remote_host, remote_device, rail, not_run;
  std::optional<int64_t> local_port, remote_port;
  int64_t sent = 0, received = 0, lost = 0;
  std::optional<double> loss_ratio;
  std::optional<int64_t> rtt_count;
  std::optional<double> rtt_min, rtt_avg, rtt_p50, rtt_p90, rtt_p99, rtt_p999, rtt_max;
  std::optional<double> network_p50, network_p99, responder_p50, responder_p99, read_p50, read_p99;
  // Error counts by status name: the summary's errors_by_status when present
  // (it counts every error), else the recorded error list.
  std::map<std::string, int64_t> error_counts;
  std::map<std::string, std::string> first_explanation;  // by status name, from the error list
  int64_t error_count = 0;
  std::string errors_by_status_json;  // error_counts as a JSON object
  std::vector<WcErrorInput> errors;
  bool has_errors = false;  // errors listed, or any errors_by_status count above 0
};

std::vector<ProbeInput> ExtractProbes(const nlohmann::json& report);
class SimdView;  // simd_view.h
std::vector<ProbeInput> ExtractProbesOfSimd(const SimdView& report);  // the same, of a simdjson document
// How many distinct targets the probes name.
size_t DistinctTargets(const std::vector<ProbeInput>& probes);

}  // namespace rdmascope::collector
