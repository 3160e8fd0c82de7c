// Background rollups and retention on a timer.
//
// Contract: each pass first calls Rollups::RollupStep until no closed slice is
// left, then Retention::RetentionStep until it deletes nothing, so the store lock
// is held for one slice or one small batch at a time and ingest never waits
// behind a large rollup or delete. On the timer, the pass rests after each
// rollup slice for twice as long as the slice held the lock, so rollups take at
// most a third of the store lock's time and a backlog of slices (after a
// restart, or a burst of history) never starves ingest; the raw retention
// (hours) leaves that catch-up ample time. Then Retention::ForgetStep over every
// node (resting like a rollup slice), SweepInterned, and a log line when
// something was forgotten. Last, Retention::ReleaseFreePages hands
// the free pages beyond the reserve back to the file system, a bounded number
// per call, resting after each call as after a rollup slice. Stop() wakes the
// worker and joins it; it returns within one batch or one rest.
//
// A rollup step that fails is logged and skipped (Rollups::SkipRollupStep) and
// the rollups go on with the next; when even the skip fails, the rollups stop
// for this pass. Either way the retention deletes run: no input can stop
// retention. With SetLead, a timer's pass runs only while this collector
// leads (one collector of those sharing a database rolls up and deletes).
// With metrics, every pass is counted (ok, or failed when a delete
// failed) and so is every skipped rollup step.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "collector/metrics/collector_metrics.h"
#include "collector/core/periodic_thread.h"
#include "collector/store/storage.h"

namespace rdmascope::collector {

class RetentionWorker {
 public:
  RetentionWorker(Storage& store, RetentionPolicy policy, int64_t interval_ms, std::function<int64_t()> now_ms,
                  std::function<void(const std::string&)> log, CollectorMetrics* metrics = nullptr);
  ~RetentionWorker() { Stop(); }
  // Whether this collector runs the timer's passes now (PgLeadership::Lead
  // for collectors sharing PostgreSQL); unset: always. Call before Start().
  void SetLead(std::function<bool()> lead) { lead_ = std::move(lead); }
  void Start();
  void Stop() { thread_.Stop(); }
  // One whole pass now, without rests; returns rows deleted.
  Result<int64_t> RunPass() { return Pass(false); }

 private:
  Result<int64_t> Pass(bool rest);
  // One round of Retention::ForgetStep, then the interned names nothing holds are freed.
  Status Forget(int64_t now, bool rest);
  Result<int64_t> Deletes(int64_t now, bool rest);
  // One rollup step; a failed one skipped (logged, counted). An error only
  // when the skip failed too.
  Result<int64_t> RollupOrSkip(int64_t now);
  // Calls step until it returns 0 or fails, or the worker stops; returns the
  // sum of what it returned. With rest, pauses after each call twice as long
  // as the call took.
  Result<int64_t> Repeat(const std::function<Result<int64_t>()>& step, bool rest);

  // A failed pass is logged when it starts a run of failures; the rest of
  // the run (a database away for minutes fails every tick) is counted and
  // told once a pass succeeds again. Every failure still counts in /metrics.
  void Failed(const std::string& what);
  void Succeeded();

  Storage& store_;
  bool failing_ = false, pass_failed_ = false;
  int64_t unlogged_failures_ = 0;
  RetentionPolicy policy_;
  int64_t interval_ms_;
  std::function<int64_t()> now_ms_;
  std::function<void(const std::string&)> log_;
  CollectorMetrics* metrics_;
  std::function<bool()> lead_;
  PeriodicThread thread_;
};

}  // namespace rdmascope::collector
