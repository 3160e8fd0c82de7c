// Retention::RetentionStep: bounded deletes, so ingest never waits long for the lock.
#include <algorithm>

#include "collector/store/retention.h"

namespace rdmascope::collector {

Result<int64_t> Retention::RetentionStep(int64_t now_ms, const RetentionPolicy& policy) {
  // kRawRolled: raw, and never past the rollup mark; kMinuteMerged: minute
  // rollups, and never past the minutes merged into hours.
  enum Age { kRaw, kRawRolled, kMinute, kMinuteMerged, kRollup };
  struct Rule {
    const char* sql;  // ?1 cutoff, ?2 batch size
    Age age;
  };
  static const Rule kRules[] = {
      {"DELETE FROM probe_summaries WHERE id IN (SELECT id FROM probe_summaries WHERE interval_end < ?1 LIMIT ?2)",
       kRawRolled},
      {"DELETE FROM counter_port_samples WHERE id IN "
       "(SELECT id FROM counter_port_samples WHERE sampled_at < ?1 LIMIT ?2)",
       kRaw},
      {"DELETE FROM wc_errors WHERE id IN (SELECT id FROM wc_errors WHERE received_at < ?1 LIMIT ?2)", kRaw},
      // Report ids outlive the raw rows: a replay of a report stored before
      // (its acknowledgement lost) must stay a duplicate, not count twice in the rollups.
      {"DELETE FROM reports WHERE id IN (SELECT id FROM reports WHERE received_at < ?1 LIMIT ?2)", kMinute},
      {"DELETE FROM probe_minute WHERE (src, dst, transport, minute) IN "
       "(SELECT src, dst, transport, minute FROM probe_minute WHERE minute < ?1 LIMIT ?2)", kMinuteMerged},
      {"DELETE FROM probe_hourly WHERE (src, dst, transport, hour) IN "
       "(SELECT src, dst, transport, hour FROM probe_hourly WHERE hour < ?1 LIMIT ?2)", kRollup},
      {"DELETE FROM events WHERE id IN (SELECT id FROM events WHERE ended_at < ?1 LIMIT ?2)", kRollup},
      {"DELETE FROM diagnoses WHERE id IN (SELECT id FROM diagnoses WHERE closed_at < ?1 LIMIT ?2)", kRollup},
      // Fabric: error-counter history is raw; links gone that long ago are forgotten with their history.
      {"DELETE FROM fabric_port_samples WHERE rowid IN (SELECT rowid FROM fabric_port_samples WHERE at < ?1 LIMIT ?2)",
       kRaw},
      // A port's rises go with its newest sample (at is that sample's time).
      {"DELETE FROM fabric_port_rises WHERE rowid IN (SELECT rowid FROM fabric_port_rises WHERE at < ?1 LIMIT ?2)",
       kRaw},
      {"DELETE FROM fabric_links WHERE rowid IN (SELECT rowid FROM fabric_links WHERE gone_at < ?1 LIMIT ?2)", kRollup},
  };
  std::lock_guard<std::mutex> lock(mu_);
  int64_t deleted = 0;
  for (const Rule& r : kRules) {
    auto q = Q(r.sql);
    if (!q.ok()) return q.status();
    int64_t cutoff = now_ms - (r.age == kRaw || r.age == kRawRolled ? policy.raw_max_age_ms
                               : r.age == kMinute || r.age == kMinuteMerged ? policy.minute_max_age_ms
                                                                      : policy.rollup_max_age_ms);
    if (r.age == kRawRolled) cutoff = std::min(cutoff, rollups_.RollupThroughMsLocked());
    if (r.age == kMinuteMerged) cutoff = std::min(cutoff, rollups_.HourlyThroughMsLocked());
    q.value()->Bind(1, cutoff).Bind(2, static_cast<int64_t>(policy.batch_rows));
    if (Status s = q.value()->Run(); !s.ok()) return s;
    deleted += db_.Changes();
  }
  auto lfts = ForgetForwardingTables(now_ms - policy.forget_after_ms, policy.batch_rows);
  if (!lfts.ok()) return lfts.status();
  if (deleted > 0) (void)loader_.LoadFabricParts();  // gone links leave the fabric counts
  return deleted + lfts.value();
}

Result<int64_t> Retention::ForgetForwardingTables(int64_t cutoff, int batch_rows) {
  // Under mu_. A switch no sweep or neighbour lookup has seen since cutoff
  // (or no longer known at all): its table goes, and the topology version
  // moves with it, in one transaction.
  Transaction tx(db_);
  if (Status s = tx.Begin(); !s.ok()) return s;
  auto del = Q("DELETE FROM fabric_lfts WHERE guid IN (SELECT l.guid FROM fabric_lfts l LEFT JOIN fabric_nodes n "
               "ON n.guid = l.guid WHERE n.guid IS NULL OR n.last_seen_at < ?1 LIMIT ?2)");
  if (!del.ok()) return del.status();
  del.value()->Bind(1, cutoff).Bind(2, static_cast<int64_t>(batch_rows));
  if (Status s = del.value()->Run(); !s.ok()) return s;
  const int64_t deleted = db_.Changes();
  if (deleted == 0) return int64_t{0};  // nothing written; the transaction rolls back
  auto bump = Q("UPDATE fabric_topology_version SET version = version + 1 WHERE id = 1");
  if (!bump.ok()) return bump.status();
  if (Status s = bump.value()->Run(); !s.ok()) return s;
  if (Status s = tx.Commit(); !s.ok()) return s;
  return deleted;
}

}  // namespace rdmascope::collector
