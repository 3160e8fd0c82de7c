// The collector's own health metrics (ingest latency, report outcomes).
//
// Contract: thread-safe; every outcome label of reports_total exists from the
// start (at 0) so rate() works before the first failure. Collect() returns
// the families ready for prometheus::TextSerializer.
#pragma once

#include <memory>
#include <vector>

#include <prometheus/counter.h>
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
  std::vector<prometheus::MetricFamily> Collect() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Histogram* ingest_ = nullptr;
  prometheus::Counter* outcomes_[7] = {};
};

}  // namespace rdmascope::collector
