#include "collector/bounded_task_queue.h"

namespace rdmascope::collector {
namespace {
thread_local bool t_overloaded = false;
}  // namespace

BoundedTaskQueue::BoundedTaskQueue(size_t workers, size_t max_queued)
    : capacity_((workers == 0 ? 1 : workers) + max_queued) {
  if (workers == 0) workers = 1;
  for (size_t i = 0; i < workers; ++i) threads_.emplace_back(&BoundedTaskQueue::Work, this, &main_, false);
  threads_.emplace_back(&BoundedTaskQueue::Work, this, &overflow_, true);
}

BoundedTaskQueue::~BoundedTaskQueue() { shutdown(); }

bool BoundedTaskQueue::Overloaded() { return t_overloaded; }

void BoundedTaskQueue::enqueue(std::function<void()> fn) {
  Lane* lane = &main_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_ >= capacity_) {
      lane = &overflow_;
      ++overflowed_;
    } else {
      ++pending_;
    }
    lane->jobs.push_back(std::move(fn));
  }
  lane->cv.notify_one();
}

void BoundedTaskQueue::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutdown_ && threads_.empty()) return;
    shutdown_ = true;
  }
  main_.cv.notify_all();
  overflow_.cv.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void BoundedTaskQueue::Work(Lane* lane, bool overflow) {
  t_overloaded = overflow;
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      lane->cv.wait(lock, [&] { return !lane->jobs.empty() || shutdown_; });
      if (lane->jobs.empty()) return;  // shut down and drained
      fn = std::move(lane->jobs.front());
      lane->jobs.pop_front();
    }
    fn();
    if (!overflow) {
      std::lock_guard<std::mutex> lock(mu_);
      --pending_;
    }
  }
}

}  // namespace rdmascope::collector
