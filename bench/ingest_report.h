// The ingest benchmarks' reports (collector_ingest_bench and pg_ingest_bench
// store the same ones) and their posting: T clients on loopback, each
// taking the next report until all are sent or the time is up.
#pragma once

#include <string>
#include <vector>

namespace rdmascope::collector::bench {

// Report n: the tests' report of node n mod 64 with `probes` probe
// summaries, ten seconds after report n - 1.
std::string IngestBenchReport(int n, int probes);

struct Posted {
  int ok = 0, failed = 0;  // 200s, and the rest (the first three are printed on stderr)
  double seconds = 0;      // from the first post to the last answer
};

// Posts every body to /api/v1/reports at 127.0.0.1:port with the token
// "bench" and a Date of now (as an agent sends it: the bodies' past times
// are history, not clock skew), `threads` at a time, for at most `seconds`.
Posted PostReports(int port, const std::vector<std::string>& bodies, int threads, int seconds);

}  // namespace rdmascope::collector::bench
