#include "collector/retention_worker.h"

#include <chrono>

namespace rdmascope::collector {

RetentionWorker::RetentionWorker(Store& store, RetentionPolicy policy, int64_t interval_ms,
                                 std::function<int64_t()> now_ms, std::function<void(const std::string&)> log)
    : store_(store),
      policy_(policy),
      interval_ms_(interval_ms),
      now_ms_(std::move(now_ms)),
      log_(std::move(log)) {}

void RetentionWorker::Start() {
  thread_.Start([this] { return interval_ms_; },
                [this] {
                  auto n = Pass(/*rest=*/true);
                  if (!n.ok())
                    log_("retention pass failed: " + n.status().message());
                  else if (n.value() > 0)
                    log_("retention: deleted " + std::to_string(n.value()) + " old rows");
                });
}

Result<int64_t> RetentionWorker::Pass(bool rest) {
  int64_t total = 0;
  const int64_t now = now_ms_();
  while (!thread_.Stopping()) {
    const auto start = std::chrono::steady_clock::now();
    auto n = store_.RollupStep(now, policy_);
    if (!n.ok()) return Result<int64_t>::Error("rollup of probe summaries failed: " + n.status().message());
    if (n.value() == 0) break;
    const auto held = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (rest && !thread_.Pause(2 * held.count())) break;
  }
  while (!thread_.Stopping()) {
    auto n = store_.RetentionStep(now, policy_);
    if (!n.ok()) return n.status();
    total += n.value();
    if (n.value() == 0) break;
  }
  int64_t released = 0;
  while (!thread_.Stopping()) {
    const auto start = std::chrono::steady_clock::now();
    auto n = store_.ReleaseFreePages(policy_.release_pages_per_step);
    if (!n.ok()) return Result<int64_t>::Error("handing free pages back failed: " + n.status().message());
    if (n.value() == 0) break;
    released += n.value();
    const auto held = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (rest && !thread_.Pause(2 * held.count())) break;
  }
  if (released > 0) log_("retention: handed " + std::to_string(released) + " free pages back to the file system");
  return total;
}

}  // namespace rdmascope::collector
