// The ingest benchmarks' synthetic report n (collector_ingest_bench and
// pg_ingest_bench store the same ones): the tests' report of node n mod 64
// with `probes` probe summaries, ten seconds after report n - 1.
#pragma once

#include <string>

#include "tests/support/test_reports.h"

namespace rdmascope::collector::bench {

inline std::string IngestBenchReport(int n, int probes) {
  const int64_t t = 1700000000000 + n * 10000LL;
  nlohmann::json r = testing::MakeReport("bench-" + std::to_string(n), "node-" + std::to_string(n % 64), t);
  for (int k = 0; k < probes; ++k) r["probes"].push_back(testing::MakeProbe("peer-" + std::to_string(k), t));
  return r.dump();
}

}  // namespace rdmascope::collector::bench
