// JSON form of a probe run: local and target endpoints, the summary
// (latencies in microseconds), every recorded error with its explanation.
// The summary and error objects have the shape of a report's "probes" entry
// (schemas/REPORT_FORMAT.md): network_us, responder_us, read_us, status_name.
#pragma once

#include <nlohmann/json.hpp>

#include "probes/latency_summary.h"
#include "probes/prober.h"

namespace rdmascope::probes {

nlohmann::json StatsToJson(const LatencyStats& s);
nlohmann::json SummaryToJson(const ProbeSummary& s);
nlohmann::json ErrorToJson(const ProbeError& e);
// The whole run as a report "probes" entry: target (the name the caller
// gives, e.g. the node), transport, local, remote (host and control port as
// probed), interval_start_ms / interval_end_ms (the run's wall times),
// summary, errors; plus flushed_after_error, reconnects,
// received_after_last_error, device_timestamps and, for the reconnect
// self-test, open_fds_before / open_fds_after. `summary` is SummarizeRun(run).
nlohmann::json RunToJson(const ProbeRun& run, const ProbeSummary& summary,
                         const std::string& target_name, const std::string& host,
                         int control_port);

// Summary of a run (samples plus the keys of its errors).
ProbeSummary SummarizeRun(const ProbeRun& run);

}  // namespace rdmascope::probes
