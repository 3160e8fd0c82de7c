// The collector's own health metrics (ingest latency, report outcomes,
// retention passes and skipped rollup steps).
//
// Contract: thread-safe; every outcome label of reports_total exists from the
// start (at 0) so rate() works before the first failure. Collect() returns
// the families ready for prometheus::TextSerializer.
#pragma once

#include <memory>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

namespace rdmascope::collector {

enum class ReportOutcome { kStored, kDuplicate, kUnauthorized, kTooLarge, kInvalid, kError, kOverloaded };

class CollectorMetrics {
 public:
  CollectorMetrics();
  void Count(ReportOutcome outcome);
  void ObserveIngestSeconds(double seconds);
  // A retention pass ended: ok, or a delete failed (retention_worker.h).
  void CountRetentionPass(bool ok);
  void CountRollupStepSkipped();
  // Whether this collector leads: runs diagnosis, rollups and retention
  // (of several sharing one PostgreSQL, the holder of the leader lock; a
  // collector on SQLite always leads). 0 until set.
  void SetLeader(bool leads);
  std::vector<prometheus::MetricFamily> Collect() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Histogram* ingest_ = nullptr;
  prometheus::Counter* outcomes_[7] = {};
  prometheus::Counter* passes_ok_ = nullptr;
  prometheus::Counter* passes_failed_ = nullptr;
  prometheus::Counter* rollup_skipped_ = nullptr;
  prometheus::Gauge* leader_ = nullptr;
};

}  // namespace rdmascope::collector
