// The collector's side of the service manager's notify protocol
// (common/sd_notify.h): READY=1 once the HTTP server accepts connections,
// then WATCHDOG=1 every half $WATCHDOG_USEC while `healthy` says the
// collector answers (the daemon passes a GET /healthz to itself, which needs
// a free HTTP worker and the database). A failed check sends nothing, so a
// wedged collector is restarted by the service manager; the failure is
// logged once per run of failures.
//
// Contract: Start() returns at once (the work is on a thread); Stop() sends
// STOPPING=1, wakes the thread and joins it. Outside the service manager
// ($NOTIFY_SOCKET unset) nothing is sent and the check never runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"

namespace rdmascope::collector {

class ServiceWatchdog {
 public:
  ServiceWatchdog(std::function<bool()> ready, std::function<Status()> healthy,
                  std::function<void(const std::string&)> log);
  ~ServiceWatchdog() { Stop(); }
  void Start();
  void Stop();

 private:
  void Loop();
  void Notify(const std::string& state);

  std::function<bool()> ready_;
  std::function<Status()> healthy_;
  std::function<void(const std::string&)> log_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool notify_failed_ = false;
  std::thread thread_;
};

}  // namespace rdmascope::collector
