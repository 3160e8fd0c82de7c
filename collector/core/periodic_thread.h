// A background thread that runs a task on a timer until stopped.
//
// Contract: Start() runs tick() every wait_ms() milliseconds (asked anew before
// each wait); Stop() wakes the thread and joins it, returning once the tick in
// progress (if any) has ended; a long tick may poll Stopping() to end early,
// or Pause() between its steps (which Stop() also ends).
// Destruction stops the thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace rdmascope::collector {

class PeriodicThread {
 public:
  ~PeriodicThread() { Stop(); }
  void Start(std::function<int64_t()> wait_ms, std::function<void()> tick);
  void Stop();
  bool Stopping();
  // Called from the tick: waits `ms`; false when Stop() was called.
  bool Pause(int64_t ms);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace rdmascope::collector
