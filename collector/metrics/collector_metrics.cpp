#include "collector/metrics/collector_metrics.h"

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
  auto& passes = prometheus::BuildCounter()
                     .Name("rdmascope_collector_retention_passes_total")
                     .Help("Retention passes by result: ok (the deletes ran), failed (a delete failed; see the log).")
                     .Register(*registry_);
  passes_ok_ = &passes.Add({{"result", "ok"}});
  passes_failed_ = &passes.Add({{"result", "failed"}});
  rollup_skipped_ = &prometheus::BuildCounter()
                         .Name("rdmascope_collector_rollup_steps_skipped_total")
                         .Help("Rollup steps that failed and were skipped: their probe summaries are missing from "
                               "the minute and hourly rollups (the log names the error).")
                         .Register(*registry_)
                         .Add({});
  leader_ = &prometheus::BuildGauge()
                 .Name("rdmascope_collector_leader")
                 .Help("1 when this collector runs diagnosis, rollups and retention: of the collectors sharing one "
                       "PostgreSQL database, the one holding the leader lock (exactly one at a time); on SQLite, "
                       "always.")
                 .Register(*registry_)
                 .Add({});
}

void CollectorMetrics::SetLeader(bool leads) { leader_->Set(leads ? 1 : 0); }

void CollectorMetrics::CountRetentionPass(bool ok) { (ok ? passes_ok_ : passes_failed_)->Increment(); }

void CollectorMetrics::CountRollupStepSkipped() { rollup_skipped_->Increment(); }

void CollectorMetrics::Count(ReportOutcome outcome) { outcomes_[static_cast<int>(outcome)]->Increment(); }

void CollectorMetrics::ObserveIngestSeconds(double seconds) { ingest_->Observe(seconds); }

std::vector<prometheus::MetricFamily> CollectorMetrics::Collect() const { return registry_->Collect(); }

}  // namespace rdmascope::collector
