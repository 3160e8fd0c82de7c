// Store::RetentionStep: bounded deletes, so ingest never waits long for the lock.
#include "collector/store.h"

namespace rdmascope::collector {

Result<int64_t> Store::RetentionStep(int64_t now_ms, const RetentionPolicy& policy) {
  struct Rule {
    const char* sql;  // ?1 cutoff, ?2 batch size
    bool raw;         // raw age (else rollup age)
  };
  static const Rule kRules[] = {
      {"DELETE FROM probe_summaries WHERE id IN (SELECT id FROM probe_summaries WHERE interval_end < ?1 LIMIT ?2)",
       true},
      {"DELETE FROM counter_samples WHERE id IN (SELECT id FROM counter_samples WHERE sampled_at < ?1 LIMIT ?2)",
       true},
      {"DELETE FROM wc_errors WHERE id IN (SELECT id FROM wc_errors WHERE received_at < ?1 LIMIT ?2)", true},
      {"DELETE FROM reports WHERE id IN (SELECT id FROM reports WHERE received_at < ?1 LIMIT ?2)", true},
      {"DELETE FROM probe_hourly WHERE (src, dst, transport, hour) IN "
       "(SELECT src, dst, transport, hour FROM probe_hourly WHERE hour < ?1 LIMIT ?2)", false},
      {"DELETE FROM events WHERE id IN (SELECT id FROM events WHERE ended_at < ?1 LIMIT ?2)", false},
      {"DELETE FROM diagnoses WHERE id IN (SELECT id FROM diagnoses WHERE closed_at < ?1 LIMIT ?2)", false},
      // Fabric: error-counter history is raw; links gone that long ago are forgotten with their history.
      {"DELETE FROM fabric_port_samples WHERE rowid IN (SELECT rowid FROM fabric_port_samples WHERE at < ?1 LIMIT ?2)",
       true},
      {"DELETE FROM fabric_links WHERE rowid IN (SELECT rowid FROM fabric_links WHERE gone_at < ?1 LIMIT ?2)", false},
  };
  std::lock_guard<std::mutex> lock(mu_);
  int64_t deleted = 0;
  for (const Rule& r : kRules) {
    auto q = Q(r.sql);
    if (!q.ok()) return q.status();
    int64_t cutoff = now_ms - (r.raw ? policy.raw_max_age_ms : policy.rollup_max_age_ms);
    q.value()->Bind(1, cutoff).Bind(2, static_cast<int64_t>(policy.batch_rows));
    if (Status s = q.value()->Run(); !s.ok()) return s;
    deleted += db_.Changes();
  }
  if (deleted > 0) (void)LoadFabricParts();  // gone links leave the fabric counts
  return deleted;
}

}  // namespace rdmascope::collector
