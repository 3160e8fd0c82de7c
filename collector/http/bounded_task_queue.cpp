#include "collector/http/bounded_task_queue.h"

namespace rdmascope::collector {

BoundedTaskQueue::BoundedTaskQueue(size_t workers, size_t max_queued)
    : capacity_((workers == 0 ? 1 : workers) + max_queued) {
  if (workers == 0) workers = 1;
  for (size_t i = 0; i < workers; ++i) threads_.emplace_back(&BoundedTaskQueue::Work, this);
}

BoundedTaskQueue::~BoundedTaskQueue() { Shutdown(); }

bool BoundedTaskQueue::TrySubmit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutdown_ || pending_ >= capacity_) return false;
    ++pending_;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

void BoundedTaskQueue::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void BoundedTaskQueue::Work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return !jobs_.empty() || shutdown_; });
      if (jobs_.empty()) return;  // shut down and drained
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
    job = nullptr;  // the connection it held closes before the slot is free
    std::lock_guard<std::mutex> lock(mu_);
    --pending_;
  }
}

}  // namespace rdmascope::collector
