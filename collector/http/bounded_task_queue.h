#pragma once
// The HTTP front's worker threads and their queue, bounded.
//
// Contract: `workers` threads run submitted jobs in arrival order. TrySubmit
// refuses a job (returns false, the job not run) when `workers` jobs run and
// `max_queued` already wait: the caller answers that connection 503 itself
// instead of letting a backlog grow. Shutdown() runs what is queued, then
// joins; later submissions are refused.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rdmascope::collector {

class BoundedTaskQueue {
 public:
  BoundedTaskQueue(size_t workers, size_t max_queued);
  ~BoundedTaskQueue();
  BoundedTaskQueue(const BoundedTaskQueue&) = delete;
  BoundedTaskQueue& operator=(const BoundedTaskQueue&) = delete;

  bool TrySubmit(std::function<void()> job);
  void Shutdown();

 private:
  void Work();

  const size_t capacity_;  // workers + max_queued: jobs running or waiting at most
  size_t pending_ = 0;      // waiting plus running
  std::mutex mu_;
  std::condition_variable cv_;
  bool shutdown_ = false;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
};

}  // namespace rdmascope::collector
