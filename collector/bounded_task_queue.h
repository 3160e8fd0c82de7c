#pragma once
// The HTTP server's connection queue, bounded.
//
// Contract: `workers` threads serve connections in arrival order. When all
// workers are busy and `max_queued` connections already wait, a new one does
// not join the queue:
// it goes to one overflow thread that serves it with Overloaded() true, so
// the request is answered 503 at once (see ApiServer::PreRoute) instead of
// waiting behind an unbounded backlog. Every connection is served (and so
// closed) by exactly one thread; shutdown() drains both queues and joins.
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rdmascope::collector {

class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(size_t workers, size_t max_queued);
  ~BoundedTaskQueue() override;

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

  // True on the overflow thread: the connection it serves arrived while the queue was full.
  static bool Overloaded();
  // Connections that were answered by the overflow thread so far.
  size_t overflowed() const { return overflowed_.load(); }

 private:
  struct Lane {
    std::deque<std::function<void()>> jobs;
    std::condition_variable cv;
  };
  void Work(Lane* lane, bool overflow);

  const size_t capacity_;  // workers + max_queued: connections in the main lane at most
  size_t pending_ = 0;      // main lane: queued plus being served
  std::mutex mu_;
  bool shutdown_ = false;
  Lane main_, overflow_;
  std::vector<std::thread> threads_;
  std::atomic<size_t> overflowed_{0};
};

}  // namespace rdmascope::collector
