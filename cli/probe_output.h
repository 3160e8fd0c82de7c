// Human-readable output of `rdmactl probe`: what perftest users expect
// (t_min, t_typical, t_avg, p99, p99.9 in microseconds), loss, and each
// distinct error status once with its explanation.
#pragma once

#include <cstdio>
#include <string>

#include "probes/latency_summary.h"
#include "probes/prober.h"

namespace rdmascope::cli {

void PrintProbeText(std::FILE* out, const probes::ProbeRun& run, const probes::ProbeSummary& s,
                    const std::string& host, int control_port);
// One line for stderr as an error happens.
std::string ProbeErrorLine(const probes::ProbeError& e);

}  // namespace rdmascope::cli
