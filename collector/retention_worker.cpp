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

void RetentionWorker::Start() { thread_ = std::thread([this] { Loop(); }); }

void RetentionWorker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<int64_t> RetentionWorker::RunPass() {
  int64_t total = 0;
  const int64_t now = now_ms_();
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) break;
    }
    auto n = store_.RetentionStep(now, policy_);
    if (!n.ok()) return n.status();
    total += n.value();
    if (n.value() == 0) break;
  }
  return total;
}

void RetentionWorker::Loop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stop_; });
      if (stop_) return;
    }
    auto n = RunPass();
    if (!n.ok())
      log_("retention pass failed: " + n.status().message());
    else if (n.value() > 0)
      log_("retention: deleted " + std::to_string(n.value()) + " old rows");
  }
}

}  // namespace rdmascope::collector
