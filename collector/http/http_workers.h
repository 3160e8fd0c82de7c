#pragma once
// How many threads serve the collector's HTTP connections by default.
//
// Contract: a worker serves one connection at a time, and a report's worker
// waits until the report's transaction has committed (GroupCommitter::Submit).
// So the workers bound how many reports one commit can take, and how many
// more can be read and parsed while it runs. Each worker holds at most one
// request body (--max-body-bytes) and its parsed form; only holders of a
// report token get a body read at all. At 2,000 nodes x 8 rails every 10 s
// (bench/collector_fleet_load --http-workers W), 8, 32, 36 and 64 workers
// did not differ beyond the run-to-run spread (collector/README.md, Write
// path), so the default stays at the smaller memory bound.
#include <cstddef>

namespace rdmascope::collector {

inline constexpr size_t kDefaultHttpWorkers = 8;
inline constexpr size_t kMaxHttpWorkers = 1024;

}  // namespace rdmascope::collector
