#include "collector/core/periodic_thread.h"

#include <chrono>

namespace rdmascope::collector {

void PeriodicThread::Start(std::function<int64_t()> wait_ms, std::function<void()> tick) {
  thread_ = std::thread([this, wait_ms = std::move(wait_ms), tick = std::move(tick)] {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, std::chrono::milliseconds(wait_ms()), [this] { return stop_; });
        if (stop_) return;
      }
      tick();
    }
  });
}

void PeriodicThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool PeriodicThread::Pause(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_; });
  return !stop_;
}

bool PeriodicThread::Stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

}  // namespace rdmascope::collector
