// The asynchronous events of one verbs context the agent keeps open (a
// responder's device, a rail's prober device), read on a thread of its own.
//
// Contract: Start(ctx, name, on_event) sets the context's async fd
// non-blocking and starts a thread that sleeps in poll() on it and on a
// wake-up fd of its own. Every event gets the next sequence number (`seq`,
// from 1) and is acknowledged (ibv_ack_async_event) as soon as what the
// callback needs is copied out of it (the QPN of a QP event, the CQ of a CQ
// event, the port of a port event), before the callback runs, so destroying
// a QP or CQ is never held up by the reader or the callback. NextSeq() is
// the number the next event will get: an owner that notes it before it
// creates a QP or CQ knows that events with a lower number are of earlier
// objects, whatever QPN or address they name (both are reused). (Left open:
// an event of another owner's object, read after this owner noted the number
// and before that object was destroyed and its address or QPN reused here,
// is taken for this owner's; it costs one needless rebuild.) The
// callback runs on the reader's thread and must not block; it may take
// locks that are never held while Stop() is called. DEVICE_FATAL, or a fd
// error or hang-up (the device was removed: an event of type "REMOVED"), is
// the last event (`last`): the thread ends after its callback and touches the
// context no more, so that callback may close it. Stop() (also the
// destructor) wakes the thread and joins it at once; otherwise the context
// must outlive the reader, so stop the reader before closing it. It never
// spins. Start fails (a Status) when the fd cannot be set up or the thread
// cannot start.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <infiniband/verbs.h>

#include "common/status.h"

namespace rdmascope::probes {

struct ContextEvent {
  enum class On { kQp, kCq, kSrq, kPort, kDevice };
  On on = On::kDevice;
  std::string type;          // "QP_FATAL", "CQ_ERR", "PORT_ERR", "DEVICE_FATAL", ..., "REMOVED"
  uint32_t qpn = 0;          // On::kQp
  const ibv_cq* cq = nullptr;  // On::kCq: which CQ (compare only, never dereference)
  int port = 0;              // On::kPort
  // An event after which the element it names no longer works as it should
  // (a QP or CQ error, a fatal device, removal), as opposed to news
  // (COMM_EST, LAST_WQE_REACHED, port changes).
  bool failure = false;
  bool last = false;  // DEVICE_FATAL or REMOVED: the reader's thread ends after it
  uint64_t seq = 0;   // the reader's count of events, from 1
};

// What an event names, copied out of it (no sequence number); for the
// reader, and for tests with events made by hand.
ContextEvent DescribeAsyncEvent(const ibv_async_event& ev);

// The short upper-case name of a verbs async event type ("PORT_ACTIVE",
// "QP_FATAL", "CQ_ERR", ...).
std::string AsyncEventName(ibv_event_type t);
// True for the events the kernel delivers with a port number.
bool IsPortEvent(ibv_event_type t);

class ContextEventReader {
 public:
  using Callback = std::function<void(const ContextEvent&)>;
  // `ctx` must outlive the reader; `name` (the device) is for error messages.
  static Result<std::unique_ptr<ContextEventReader>> Start(ibv_context* ctx, const std::string& name,
                                                           Callback on_event);
  ~ContextEventReader();
  ContextEventReader(const ContextEventReader&) = delete;
  ContextEventReader& operator=(const ContextEventReader&) = delete;
  void Stop();
  uint64_t NextSeq() const { return seq_.load() + 1; }

 private:
  ContextEventReader() = default;
  void Loop();

  ibv_context* ctx_ = nullptr;
  Callback on_event_;
  int wake_fd_ = -1;  // eventfd: Stop() writes it
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> seq_{0};  // the last event's number
  std::thread thread_;
};

}  // namespace rdmascope::probes
