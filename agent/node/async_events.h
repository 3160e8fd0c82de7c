// Watches one RDMA device's asynchronous events (ibv_get_async_event) on a
// thread of its own and hands each to a callback.
//
// Contract: Start() opens the device (the error names the verb) and reads
// its events with a probes::ContextEventReader: `on_event` is called on the
// reader's thread for every event (port events carry the port number) after
// it was acknowledged. DEVICE_FATAL, or the fd reporting an error or hang-up
// (the device was removed: the kernel closed the context), ends the watch:
// the context is closed at once (so `rdma link delete` is not held up), then
// `on_event` is called with gone = true, and the thread exits. It never spins.
// Stop() (also the destructor) wakes the thread, joins it and closes the
// context.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "probes/context_events.h"

namespace rdmascope::agent {

struct AsyncEvent {
  std::string device;
  std::string type;  // "PORT_ACTIVE", "PORT_ERR", "GID_CHANGE", "LID_CHANGE", "DEVICE_FATAL", ... or "REMOVED"
  int port = 0;      // port events only
  bool gone = false; // the watch ended: the device is gone or fatal
};

class AsyncEventWatcher {
 public:
  using Callback = std::function<void(const AsyncEvent&)>;
  static Result<std::unique_ptr<AsyncEventWatcher>> Start(const std::string& device, Callback on_event);
  ~AsyncEventWatcher();
  void Stop();
  bool done() const { return done_.load(); }

 private:
  AsyncEventWatcher() = default;
  // The reader's callback; the last event closes the context.
  void OnEvent(const probes::ContextEvent& e);

  std::string device_;
  Callback on_event_;
  void* ctx_ = nullptr;  // ibv_context*: closed by the last event, or by Stop()
  std::atomic<bool> done_{false};
  std::unique_ptr<probes::ContextEventReader> reader_;
};

}  // namespace rdmascope::agent
