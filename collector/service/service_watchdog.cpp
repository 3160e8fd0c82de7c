#include "collector/service/service_watchdog.h"

#include <cstdlib>
#include <utility>

#include "common/sd_notify.h"

namespace rdmascope::collector {

ServiceWatchdog::ServiceWatchdog(std::function<bool()> ready, std::function<Status()> healthy,
                                 std::function<void(const std::string&)> log)
    : ready_(std::move(ready)), healthy_(std::move(healthy)), log_(std::move(log)) {}

void ServiceWatchdog::Start() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  if (!socket || !*socket) return;
  thread_ = std::thread([this] { Loop(); });
}

void ServiceWatchdog::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
    Notify("STOPPING=1");
  }
}

void ServiceWatchdog::Notify(const std::string& state) {
  Status s = SdNotify(state);
  if (!s.ok() && !notify_failed_) log_(s.message() + " (logged once)");
  if (!s.ok()) notify_failed_ = true;
}

void ServiceWatchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  // Ready: the listening socket is bound already; wait until the server loop runs.
  while (!stop_ && !ready_()) cv_.wait_for(lock, std::chrono::milliseconds(5));
  if (stop_) return;
  Notify("READY=1");
  const auto interval = WatchdogPingInterval();
  if (!interval) return;
  bool failing = false;
  while (!cv_.wait_for(lock, *interval, [this] { return stop_; })) {
    lock.unlock();
    Status s = healthy_();
    lock.lock();
    if (stop_) break;
    if (s.ok()) {
      if (failing) log_("health check passes again; watchdog pings resumed");
      failing = false;
      Notify("WATCHDOG=1");
    } else if (!failing) {
      failing = true;
      log_("health check failed, withholding watchdog pings: " + s.message());
    }
  }
}

}  // namespace rdmascope::collector
