#include "collector/service/retention_worker.h"

#include "collector/core/heap_release.h"

#include <chrono>

namespace rdmascope::collector {

RetentionWorker::RetentionWorker(Storage& store, RetentionPolicy policy, int64_t interval_ms,
                                 std::function<int64_t()> now_ms, std::function<void(const std::string&)> log,
                                 CollectorMetrics* metrics)
    : store_(store),
      policy_(policy),
      interval_ms_(interval_ms),
      now_ms_(std::move(now_ms)),
      log_(std::move(log)),
      metrics_(metrics) {}

void RetentionWorker::Start() {
  thread_.Start([this] { return interval_ms_; },
                [this] {
                  if (lead_ && !lead_()) return;  // another collector rolls up and deletes
                  pass_failed_ = false;
                  auto n = Pass(/*rest=*/true);
                  if (!n.ok()) {
                    Failed("retention pass failed: " + n.status().message());
                  } else {
                    if (!pass_failed_) Succeeded();
                    if (n.value() > 0) log_("retention: deleted " + std::to_string(n.value()) + " old rows");
                  }
                  ReleaseFreedHeap();  // what the rollups and forgetting freed
                });
}

void RetentionWorker::Failed(const std::string& what) {
  pass_failed_ = true;
  if (failing_) {
    ++unlogged_failures_;
    return;
  }
  failing_ = true;
  log_(what + " (until a pass succeeds again, further failures are counted, not logged)");
}

void RetentionWorker::Succeeded() {
  if (!failing_) return;
  log_("retention passes succeed again; " + std::to_string(unlogged_failures_) + " more failed meanwhile");
  failing_ = false;
  unlogged_failures_ = 0;
}

Result<int64_t> RetentionWorker::Repeat(const std::function<Result<int64_t>()>& step, bool rest) {
  int64_t total = 0;
  while (!thread_.Stopping()) {
    const auto start = std::chrono::steady_clock::now();
    auto n = step();
    if (!n.ok()) return n.status();
    if (n.value() == 0) break;
    total += n.value();
    const auto held = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (rest && !thread_.Pause(2 * held.count())) break;
  }
  return total;
}

Status RetentionWorker::Forget(int64_t now, bool rest) {
  Retention::ForgetTally tally;
  auto visited = Repeat([&] { return store_.retention.ForgetStep(now, policy_, &tally); }, rest);
  if (!visited.ok()) return visited.status();
  // The names nothing holds any more: those of what was just dropped (once
  // its readers let go) and of what earlier passes dropped.
  const size_t names = SweepInterned();
  if (tally.nodes > 0 || tally.rows > 0 || tally.pairs > 0) {
    log_("retention: forgot " + std::to_string(tally.nodes) + " nodes, " + std::to_string(tally.rows) +
         " rows of ports, counters and neighbours and " + std::to_string(tally.pairs) +
         " probe pairs not seen for " + std::to_string(policy_.forget_after_ms / 1000) + " s; freed " +
         std::to_string(names) + " names");
  }
  return Status::Ok();
}

Result<int64_t> RetentionWorker::RollupOrSkip(int64_t now) {
  auto n = store_.rollups.RollupStep(now, policy_);
  if (n.ok()) return n;
  auto skipped = store_.rollups.SkipRollupStep(now, policy_);
  if (!skipped.ok())
    return Result<int64_t>::Error("rollup of probe summaries failed (" + n.status().message() +
                                  ") and skipping the failed step failed too (" + skipped.status().message() + ")");
  if (skipped.value() > 0) {
    if (metrics_) metrics_->CountRollupStepSkipped();
    log_("rollup of probe summaries failed and the step was skipped (its summaries stay out of the rollups): " +
         n.status().message());
  }
  return skipped;
}

Result<int64_t> RetentionWorker::Pass(bool rest) {
  const int64_t now = now_ms_();
  auto rolled = Repeat([&] { return RollupOrSkip(now); }, rest);
  if (!rolled.ok()) Failed(rolled.status().message() + "; the retention deletes run without the rollups this pass");
  auto deleted = Deletes(now, rest);
  if (metrics_) metrics_->CountRetentionPass(deleted.ok());
  return deleted;
}

Result<int64_t> RetentionWorker::Deletes(int64_t now, bool rest) {
  auto deleted = Repeat([&] { return store_.retention.RetentionStep(now, policy_); }, /*rest=*/false);
  if (!deleted.ok()) return deleted.status();
  if (Status s = Forget(now, rest); !s.ok()) Failed("retention: forgetting failed: " + s.message());
  auto released = Repeat([&] { return store_.retention.ReleaseFreePages(policy_.release_pages_per_step); }, rest);
  if (!released.ok()) return Result<int64_t>::Error("handing free pages back failed: " + released.status().message());
  if (released.value() > 0)
    log_("retention: handed " + std::to_string(released.value()) + " free pages back to the file system");
  return deleted;
}

}  // namespace rdmascope::collector
