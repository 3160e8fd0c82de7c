#include "collector/collector_metrics.h"

namespace rdmascope::collector {

CollectorMetrics::CollectorMetrics() : registry_(std::make_shared<prometheus::Registry>()) {
  auto& hist = prometheus::BuildHistogram()
                   .Name("rdmascope_collector_ingest_duration_seconds")
                   .Help("Time to validate and store one report (POST /api/v1/reports), seconds.")
                   .Register(*registry_);
  ingest_ = &hist.Add({}, prometheus::Histogram::BucketBoundaries{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                                   0.1, 0.25, 0.5, 1, 2.5});
  auto& reports = prometheus::BuildCounter()
                      .Name("rdmascope_collector_reports_total")
                      .Help("Reports received by outcome: stored, duplicate (acknowledged, stored before), "
                            "unauthorized, too_large, invalid, error (store failure), overloaded (503: all workers busy).")
                      .Register(*registry_);
  const char* names[] = {"stored", "duplicate", "unauthorized", "too_large", "invalid", "error", "overloaded"};
  for (int i = 0; i < 7; ++i) outcomes_[i] = &reports.Add({{"result", names[i]}});
}

void CollectorMetrics::Count(ReportOutcome outcome) { outcomes_[static_cast<int>(outcome)]->Increment(); }

void CollectorMetrics::ObserveIngestSeconds(double seconds) { ingest_->Observe(seconds); }

std::vector<prometheus::MetricFamily> CollectorMetrics::Collect() const { return registry_->Collect(); }

}  // namespace rdmascope::collector
