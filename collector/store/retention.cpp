// Retention::RetentionStep: bounded deletes, so ingest never waits long for the lock.
#include <algorithm>

#include "collector/store/retention.h"

namespace rdmascope::collector {

namespace {

// kRawRolled: raw, and never past the rollup mark; kMinuteMerged: minute
// rollups, and never past the minutes merged into hours.
enum Age { kRaw, kRawRolled, kMinute, kMinuteMerged, kRollup };

struct Rule {
  const char* sql;  // ?1 cutoff, ?2 batch size
  Age age;
};

// The tables PostgreSQL keeps in day partitions (schemas/postgres): whole
// days are dropped, and the rows that wait in the DEFAULT partition (their
// day had no partition yet) deleted in batches.
struct Partitioned {
  const char* table;
  const char* drop_default_sql;  // ?1 cutoff, ?2 batch size
  Age age;
};

#define DEFAULT_ROWS(T, TIME) \
  "DELETE FROM " T "_default WHERE ctid IN (SELECT ctid FROM " T "_default WHERE " TIME " < ?1 LIMIT ?2)"
constexpr Partitioned kPartitioned[] = {
    {"probe_summaries", DEFAULT_ROWS("probe_summaries", "interval_end"), kRawRolled},
    {"counter_port_samples", DEFAULT_ROWS("counter_port_samples", "sampled_at"), kRaw},
    {"wc_errors", DEFAULT_ROWS("wc_errors", "received_at"), kRaw},
    {"fabric_port_samples", DEFAULT_ROWS("fabric_port_samples", "at"), kRaw},
    {"probe_minute", DEFAULT_ROWS("probe_minute", "minute"), kMinuteMerged},
};
#undef DEFAULT_ROWS

// Tables partitioned on PostgreSQL, deleted by rows on SQLite.
constexpr Rule kPartitionedOnPostgres[] = {
    {"DELETE FROM probe_summaries WHERE id IN (SELECT id FROM probe_summaries WHERE interval_end < ?1 LIMIT ?2)",
     kRawRolled},
    {"DELETE FROM counter_port_samples WHERE id IN "
     "(SELECT id FROM counter_port_samples WHERE sampled_at < ?1 LIMIT ?2)",
     kRaw},
    {"DELETE FROM wc_errors WHERE id IN (SELECT id FROM wc_errors WHERE received_at < ?1 LIMIT ?2)", kRaw},
    {"DELETE FROM probe_minute WHERE (src, dst, transport, minute) IN "
     "(SELECT src, dst, transport, minute FROM probe_minute WHERE minute < ?1 LIMIT ?2)",
     kMinuteMerged},
    // Fabric: error-counter history is raw.
    {"DELETE FROM fabric_port_samples WHERE (guid, port, at) IN "
     "(SELECT guid, port, at FROM fabric_port_samples WHERE at < ?1 LIMIT ?2)",
     kRaw},
};

// Tables deleted by rows on both engines.
constexpr Rule kByRows[] = {
    // Report ids outlive the raw rows: a replay of a report stored before
    // (its acknowledgement lost) must stay a duplicate, not count twice in the rollups.
    {"DELETE FROM reports WHERE id IN (SELECT id FROM reports WHERE received_at < ?1 LIMIT ?2)", kMinute},
    {"DELETE FROM probe_hourly WHERE (src, dst, transport, hour) IN "
     "(SELECT src, dst, transport, hour FROM probe_hourly WHERE hour < ?1 LIMIT ?2)",
     kRollup},
    {"DELETE FROM events WHERE id IN (SELECT id FROM events WHERE ended_at < ?1 LIMIT ?2)", kRollup},
    {"DELETE FROM diagnoses WHERE id IN (SELECT id FROM diagnoses WHERE closed_at < ?1 LIMIT ?2)", kRollup},
    // A port's rises go with its newest sample (at is that sample's time).
    {"DELETE FROM fabric_port_rises WHERE (guid, port) IN (SELECT guid, port FROM fabric_port_rises WHERE at < ?1 "
     "LIMIT ?2)",
     kRaw},
    // Links gone that long ago are forgotten with their history.
    {"DELETE FROM fabric_links WHERE (a_guid, a_port, b_guid, b_port) IN (SELECT a_guid, a_port, b_guid, b_port "
     "FROM fabric_links WHERE gone_at < ?1 LIMIT ?2)",
     kRollup},
};

}  // namespace

Result<int64_t> Retention::RetentionStep(int64_t now_ms, const RetentionPolicy& policy) {
  std::lock_guard<std::mutex> lock(mu_);
  auto cutoff_of = [&](Age age) {
    int64_t cutoff = now_ms - (age == kRaw || age == kRawRolled ? policy.raw_max_age_ms
                               : age == kMinute || age == kMinuteMerged ? policy.minute_max_age_ms
                                                                        : policy.rollup_max_age_ms);
    if (age == kRawRolled) cutoff = std::min(cutoff, rollups_.RollupThroughMsLocked());
    if (age == kMinuteMerged) cutoff = std::min(cutoff, rollups_.HourlyThroughMsLocked());
    return cutoff;
  };
  int64_t deleted = 0;
  auto run = [&](const char* sql, int64_t cutoff) -> Status {
    auto q = Q(sql);
    if (!q.ok()) return q.status();
    q.value()->Bind(1, cutoff).Bind(2, static_cast<int64_t>(policy.batch_rows));
    if (Status s = q.value()->Run(); !s.ok()) return s;
    deleted += db_.Changes();
    return Status::Ok();
  };
  if (db_.postgres()) {
    if (Status s = EnsureDayPartitions(now_ms); !s.ok()) return s;
    for (const Partitioned& t : kPartitioned) {
      auto dropped = DropDayPartitions(t.table, cutoff_of(t.age));
      if (!dropped.ok()) return dropped.status();
      deleted += dropped.value();
      if (Status s = run(t.drop_default_sql, cutoff_of(t.age)); !s.ok()) return s;
    }
  } else {
    for (const Rule& r : kPartitionedOnPostgres)
      if (Status s = run(r.sql, cutoff_of(r.age)); !s.ok()) return s;
  }
  for (const Rule& r : kByRows)
    if (Status s = run(r.sql, cutoff_of(r.age)); !s.ok()) return s;
  auto lfts = ForgetForwardingTables(now_ms - policy.forget_after_ms, policy.batch_rows);
  if (!lfts.ok()) return lfts.status();
  if (deleted > 0) (void)loader_.LoadFabricParts();  // gone links leave the fabric counts
  return deleted + lfts.value();
}

Status Retention::BeginUnderSchemaLock(Transaction& tx) {
  if (Status s = tx.Begin(); !s.ok()) return s;
  auto lock = Q(kPgSchemaXactLockSql);
  if (!lock.ok()) return lock.status();
  if (Status s = lock.value()->Run(); !s.ok()) return Status::Error("retention, taking the schema lock: " + s.message());
  return Status::Ok();
}

Result<int64_t> Retention::DropDayPartitions(const char* table, int64_t cutoff) {
  // Under mu_. The schema's lock: two collectors never drop (or make) the same day.
  Transaction tx(db_);
  if (Status s = BeginUnderSchemaLock(tx); !s.ok()) return s;
  auto q = Q("SELECT rdmascope_drop_partitions_before(?1, ?2)");
  if (!q.ok()) return q.status();
  q.value()->Bind(1, table).Bind(2, cutoff);
  auto row = q.value()->Step();
  if (!row.ok()) return Status::Error(std::string("retention, dropping the old days of ") + table + ": " +
                                      row.status().message());
  const int64_t dropped = row.value() ? q.value()->Int(0) : 0;
  q.value()->Reset();
  if (Status s = tx.Commit(); !s.ok()) return s;
  return dropped;
}

Status Retention::EnsureDayPartitions(int64_t now_ms) {
  // Under mu_. The day before now through kPgPartitionDaysAhead after, once a day.
  constexpr int64_t kDayMs = 86400000;
  const int64_t today = now_ms / kDayMs;
  if (today == partitions_made_on_day_) return Status::Ok();
  Transaction tx(db_);
  if (Status s = BeginUnderSchemaLock(tx); !s.ok()) return s;
  auto q = Q("SELECT rdmascope_ensure_partitions(?1, ?2)");
  if (!q.ok()) return q.status();
  q.value()->Bind(1, now_ms - kDayMs).Bind(2, static_cast<int64_t>(kPgPartitionDaysAhead + 1));
  if (Status s = q.value()->Run(); !s.ok()) return Status::Error("retention, making the next days' partitions: " + s.message());
  if (Status s = tx.Commit(); !s.ok()) return s;
  partitions_made_on_day_ = today;
  return Status::Ok();
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
