// How long the store keeps rows and how it builds rollups (Retention, Rollups).
#pragma once

#include <cstdint>

namespace rdmascope::collector {

// How long rows are kept, and how rollups are built. The defaults keep a node
// with 8 rails x 20 targets x 2 transports every 10 s under 50 MB (measured by
// bench/collector_fleet_load; collector/README.md, Retention).
struct RetentionPolicy {
  int64_t raw_max_age_ms = 3600LL * 1000;             // probe summaries, counter samples, wc errors
  int64_t minute_max_age_ms = 1LL * 86400 * 1000;     // per-minute probe rollups, report ids (dedupe)
  int64_t rollup_max_age_ms = 90LL * 86400 * 1000;    // hourly rollups and closed events
  int batch_rows = 500;                                // rows deleted per step and table
  // A slice of raw time is rolled up once it ended this long ago; summaries
  // for it that arrive later are added to the rollups as they are stored.
  int64_t rollup_grace_ms = 2LL * 60 * 1000;
  // Raw time one RollupStep covers (divides a minute): the store lock is held
  // for one slice, about 150 ms per slice at 2,000 nodes x 320 summaries
  // every 10 s when the nodes' intervals are spread over the 10 s.
  int64_t rollup_slice_ms = 1000;
  // Free pages one Retention::ReleaseFreePages call hands back (2 MiB at the
  // default 4 KiB page): pages in use past them are moved down, under the
  // lock; about 30 ms a step in a 1.2 GB file whose older half was deleted
  // (2,048 pages: about 130 ms).
  int64_t release_pages_per_step = 512;
  // A node silent this long is forgotten (its nodes, ports, counters_latest,
  // wc_error_totals and node_neighbours rows, and its state in memory); so
  // are a reporting node's ports, counters and neighbours not reported this
  // long. Probe pairs leave memory when their newest summary ended longer
  // ago than this or raw_max_age_ms, whichever is shorter.
  int64_t forget_after_ms = 7LL * 86400 * 1000;
};

}  // namespace rdmascope::collector
