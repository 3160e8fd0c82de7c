// Probe rollups: probe_minute and probe_hourly, built from the raw summaries
// once per closed slice of time, and the path for summaries that arrive after
// their slice was rolled (contract of the tables in
// schemas/migrations/0006_probe_minute.sql and rollups.cpp).
//
// Contract:
//  - RollupStep rolls the oldest closed slice of raw summaries
//    (policy.rollup_slice_ms, closed policy.rollup_grace_ms before now_ms)
//    into probe_minute, and the ten minutes completed by earlier steps into
//    probe_hourly (the hour in progress trails the minutes by up to ten), in
//    one transaction; returns 1, or 0 when nothing is left to roll. On
//    SQLite the slice and the minutes are read and grouped on a connection
//    of their own, without the writer's lock; what is stored meanwhile is
//    added under it. On PostgreSQL each is one INSERT ... SELECT the server
//    groups and merges, under the lock: no row travels to the collector.
//  - SkipRollupStep moves the marks past what RollupStep would roll now,
//    adding nothing: for a step that failed, so one bad slice never holds
//    the marks (and with them the raw retention) for good.
//  - The writer (ReportWriter) calls AddLateSummaryToRollups, BeginTransaction,
//    JoinWriterTransaction, RollBackOwed and OweCommittedLateSummaries under
//    the writer's lock, as its transaction goes.
//  - On PostgreSQL several collectors share the marks (one leader rolls):
//    a step reads them again once it holds the rollup lock (pg_locks.h) and
//    rolls nothing when they moved since it planned (a collector that
//    became leader starts from the shared marks, never from its own old
//    ones); every writer's transaction reads them under the same lock,
//    shared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collector/core/probe_input.h"
#include "collector/store/retention_policy.h"
#include "collector/store/writer_db.h"

namespace rdmascope::collector {

class Rollups {
 public:
  explicit Rollups(WriterDb& w) : w_(w), mu_(w.mu()), db_(w.conn()), options_(w.options()) {}

  Status LoadRollupMark();  // under the writer's lock (at open)
  Result<int64_t> RollupStep(int64_t now_ms, const RetentionPolicy& policy);
  Result<int64_t> SkipRollupStep(int64_t now_ms, const RetentionPolicy& policy);
  // Raw summaries with interval_end below this are counted in the rollups.
  int64_t RollupThroughMs();
  // The same two marks, for a caller that holds the writer's lock.
  int64_t RollupThroughMsLocked() const { return rollup_through_ms_; }
  int64_t HourlyThroughMsLocked() const { return hourly_through_ms_; }
  // Test seam: called by RollupStep after it read a slice and before it
  // takes the lock to write it.
  void SetRollupReadHook(std::function<void()> hook);

  // For the writer's transaction, under the writer's lock.
  void BeginTransaction();
  // First in the writer's transaction, after its BEGIN. On PostgreSQL, where
  // another collector may lead and roll: waits for a rollup step to end,
  // keeps the next from moving the marks until this transaction ends, and
  // reads the marks as they stand, so what is late is found against the
  // shared marks. Nothing on SQLite (one writer: its marks are the file's).
  Status JoinWriterTransaction();
  // Adds one summary from src that arrived after its slice was rolled.
  Status AddLateSummaryToRollups(const std::string& src, const ProbeInput& s);
  size_t PendingOwed() const;
  void RollBackOwed(size_t to);     // a report rolled back to its savepoint
  void OweCommittedLateSummaries();  // after a commit

 private:
  Result<SqlStmt*> Q(const char* sql) { return w_.Q(sql); }
  Result<nlohmann::json> History(const std::function<Result<nlohmann::json>(SqlConn&)>& fn) { return w_.History(fn); }
  // One late summary's measures, in its minute or hour (period).
  struct LateSummary {
    std::string src, dst, transport;
    int64_t period, sent, received, lost, error_count;
    std::optional<double> rtt_p50, rtt_p99, rtt_max;
  };
  // One rollup row (of a minute or an hour), as grouped on a read connection;
  // defined in rollups.cpp.
  struct Rollup;
  // What one step rolls, decided under the writer's lock (PlanStep).
  struct StepPlan {
    int64_t mark = 0;             // rollup_through_ms_ when planned
    int64_t start = 0;            // the slice's first ms
    int64_t new_mark = 0;         // the minute mark after the step
    int64_t read_through_id = 0;  // summaries up to this id are read without the lock (SQLite; 0: none)
    int64_t hourly_from = 0, hourly_to = 0;  // the minutes merged into hours
    bool slice = false;           // a slice [start, new_mark) is rolled
    bool hourly_pinned = false;   // the minutes are read on rollup_reader_
  };
  // RollupStep, or with skip SkipRollupStep.
  Result<int64_t> RollOrSkip(int64_t now_ms, const RetentionPolicy& policy, bool skip);
  // Under the lock: fills *p for a step at now_ms, pinning rollup_reader_
  // for the minutes when it can. false: nothing to roll or skip.
  Result<bool> PlanStep(int64_t now_ms, const RetentionPolicy& policy, bool skip, StepPlan* p);
  // Under the lock: the slice at or past the mark holding raw summaries
  // (p->start, p->new_mark, p->slice) and, when it is rolled on SQLite, the
  // newest summary id (p->read_through_id).
  Status FindSlice(int64_t closed_until, const RetentionPolicy& policy, bool skip, StepPlan* p);
  // Without the lock: the slice's summaries up to p->read_through_id, grouped
  // into minutes; when that read fails, none and p->read_through_id = 0.
  void ReadSliceMinutes(StepPlan* p, std::vector<Rollup>* grouped);
  // Without the lock, on the pinned reader: the plan's minutes summed into
  // hours; false (and none) when that read failed.
  bool ReadHoursOfMinutes(const StepPlan& p, std::vector<Rollup>* hours);
  // Ends the pinned read of the minutes; takes the lock.
  void EndHourlyRead();
  // Under the lock, in the step's transaction: the grouped minutes, then the
  // slice's summaries stored after the read.
  Status WriteSliceMinutes(const StepPlan& p, const std::vector<Rollup>& grouped);
  // Under the lock, in the step's transaction: the hours read (and the late
  // summaries owed to them), or when hours_read is false the minutes summed here.
  Status WriteHours(const StepPlan& p, bool hours_read, const std::vector<Rollup>& hours);
  // Under the lock, in the step's transaction: both marks.
  Status SaveMarks(int64_t minute_mark, int64_t hourly_mark);
  // Steps q (selecting src, dst, transport, period, then the measures) to its end.
  static Status ReadRollups(SqlStmt& q, std::vector<Rollup>* out);
  // Runs up (an upsert of src, dst, transport, period, then the measures) once per row.
  static Status WriteRollups(SqlStmt& up, const std::vector<Rollup>& rows);
  // Begins a read transaction on rollup_reader_ and takes its view of the
  // database; false when there is no reader or that failed.
  bool PinRollupReader();
  // Adds one late summary to probe_minute or probe_hourly (upsert: the
  // matching statement in rollups.cpp).
  Status AddOneLateSummary(const char* upsert, const LateSummary& o);

  WriterDb& w_;
  std::mutex& mu_;
  SqlConn& db_;
  const StoreOptions& options_;
  int64_t rollup_through_ms_ = 0;
  // Whole minutes below this are counted in probe_hourly; at most the minute
  // of rollup_through_ms_. The minutes between are merged by a later step,
  // ten minutes at a time.
  int64_t hourly_through_ms_ = 0;
  // While a step reads minutes [hourly_reading_from_, hourly_reading_to_)
  // without the lock (to 0: none): the late summaries committed in them since
  // its read began, which it adds under the lock. The open transaction's own
  // are kept apart (pending_owed_) until it commits.
  int64_t hourly_reading_from_ = 0, hourly_reading_to_ = 0;
  std::vector<LateSummary> hourly_owed_, pending_owed_;
  std::unique_ptr<Db> rollup_reader_;  // read-only; opened on first use; none for ":memory:"
  std::function<void()> rollup_read_hook_;
};

}  // namespace rdmascope::collector
