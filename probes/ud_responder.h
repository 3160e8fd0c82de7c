// UD echo responder: one UD QP on one port. Each valid probe is echoed at
// once to its sender with the responder's own receive->send delay in it.
//
// Contract: Run() loops until `stop` is set (checked at least every 100 ms).
// After each completion it keeps polling for the hot window of `spin`, then
// sleeps on the completion channel armed for solicited completions only (the
// probers send probes solicited; our own echo completions wake nobody). The
// delay T4 - T3 runs from the receive completion to just before
// ibv_post_send, in one clock: device ticks (its timestamp, then the raw
// clock read) when the CQ has timestamps, else host time from the poll that
// found it. One echo in kSignalEvery is signalled. Reply address handles
// live in an LRU of kMaxAhCache entries; an entry still used by an echo in
// flight is never evicted. UdResponderFaults inject faults for self-tests.
// Errors inside the loop are logged, never thrown.
//
// Recovery: a failed completion (send or receive; flushes that follow a
// failure are not failures of their own) is noted, and after that batch the
// QP is brought back: from SQE to RTS, or from any other state through
// RESET to RTS with the CQ drained and every receive posted again. The QPN
// stays the same. Each
// failure yields one ResponderEvent (TakeEvents()) naming the QPN, the
// completion status and what recovery did. When recovery fails, or the
// completion channel fails, Run() returns with an event saying why and
// stopped() is true: the owner builds a new responder.
//
// Async events (read by the owner on the device's context): QpEvent(type)
// makes Run(), after its current wait (at most a second), query the QP and,
// when it left RTS, bring it back as above with an event naming the async
// event; a QP still in RTS gets an event saying so. CqFailed(type) makes
// Run() return the same way (stopped(), an event naming the async event): a
// failed CQ cannot be brought back, the owner builds a new responder.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "probes/adaptive_spin.h"
#include "probes/completion_queue.h"
#include "probes/lru_cache.h"
#include "probes/send_signal.h"
#include "probes/control_protocol.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

// A failure of a responder QP and what was done about it.
struct ResponderEvent {
  std::string device;
  int port = 1;
  uint32_t qpn = 0;
  std::string status;  // the completion status that failed ("LOC_PROT_ERR"), or the failing verb
  std::string detail;  // what failed and what recovery did, for an operator
  bool recovered = false;
  int64_t at_ms = 0;   // wall-clock time of the failure
};

// Cache key for the reply address handle of a UD receive: everything
// ibv_init_ah_from_wc builds the AH from. `hdr` is the 40-byte network header
// area in front of the message, which holds either a GRH (InfiniBand, RoCE v1,
// RoCE v2 over IPv6) or, for RoCE v2 over IPv4, 20 undefined bytes followed by
// the IPv4 header (rdma-core decides the same way: GRH version 6 unless a valid
// IPv4 header sits at byte 20). The key holds the header kind, traffic class
// (and flow label) and the source and destination addresses, plus `slid`; two
// senders never share a key, and one sender's packets always do.
std::string UdReplyAhKey(const uint8_t* hdr, uint16_t slid);

// Fault injection for self-tests; all off by default.
struct UdResponderFaults {
  bool drop = false;         // probes are received and not echoed
  uint64_t bad_send_at = 0;  // N > 0: the Nth echo is posted with a bad lkey, which fails it (a local
                             // protection error) and takes the QP out of RTS
  // N > 0: the CQ has room for only kStallCqEntries completions, and once N
  // probes arrived within kStallWindowMs (a prober's burst; a fleet's spread
  // probes never do) it is not polled for kStallMs, once: the probes that
  // keep arriving overrun it and the device raises the async event CQ_ERR.
  size_t stall_burst = 0;
  static constexpr int kStallCqEntries = 2;
  static constexpr int kStallWindowMs = 100;
  static constexpr int kStallMs = 500;
};

class UdResponder {
 public:
  // `ctx` and `pd` must outlive the responder.
  static Result<std::unique_ptr<UdResponder>> Create(ibv_context* ctx, ibv_pd* pd,
                                                     const std::string& device, int port,
                                                     const ResponderSpin& spin = {},
                                                     const UdResponderFaults& faults = {});
  ~UdResponder();

  uint32_t qpn() const { return qp_->qp_num; }
  int port() const { return port_; }
  const std::string& device() const { return device_; }
  uint64_t echoed() const { return echoed_.load(); }
  // True once Run() has returned by itself (not through `stop`).
  bool stopped() const { return stopped_.load(); }
  // Why it stopped (after stopped()): the status that failed ("CQ_ERR",
  // "LOC_PROT_ERR", "completion wait failed").
  const std::string& stop_status() const { return stop_status_; }
  // The events since the previous call (thread-safe).
  std::vector<ResponderEvent> TakeEvents();
  // The async events of its QP and CQ (thread-safe; see the contract).
  void QpEvent(const std::string& type);
  void CqFailed(const std::string& type);
  const ibv_cq* cq() const { return cq_->cq(); }

  void Run(const std::atomic<bool>& stop);

 private:
  struct CachedAh {
    AhPtr ah;
    uint64_t last_send = 0;  // number of the last echo posted with it
  };
  UdResponder();
  Status PostRecv(uint32_t slot);
  void HandleRecv(const Completion& c);
  CachedAh* AhFor(const Completion& c, const uint8_t* grh);
  // Notes the first failed completion since the QP was last in RTS.
  void NoteFailure(const Completion& c, const char* what);
  // Brings the QP back to RTS after a failure; false when it cannot.
  bool Recover();
  void AddEvent(ResponderEvent e);
  // An event of this QP now: detail "UD responder DEV/PORT QPN N: " + what.
  ResponderEvent NewEvent(std::string status, const std::string& what) const;

  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  std::string device_;
  int port_ = 1;
  UdResponderFaults faults_;
  std::unique_ptr<CompletionQueue> cq_;
  QpPtr qp_;
  Buffer buf_;
  ResponderSpin spin_;
  SendSignaler sends_;
  LruCache<CachedAh> ah_cache_;  // key: UdReplyAhKey
  std::atomic<uint64_t> echoed_{0};
  std::atomic<bool> stopped_{false};
  uint64_t echoes_posted_ = 0;
  std::optional<ResponderEvent> failure_;  // noted, not yet recovered from
  // Async events handed over by QpEvent / CqFailed, taken by Run().
  std::mutex async_mu_;
  std::string qp_event_, cq_failed_;  // under async_mu_; empty: none
  std::atomic<bool> async_pending_{false};
  // Run(): acts on the async events handed over; false when it must stop
  // (cq_failed_status_ says why).
  bool TakeAsyncEvents();
  std::string cq_failed_status_;
  // Run() stops by itself: `status` says why (stop_status()).
  void StopWith(std::string status);
  std::string stop_status_;  // written before stopped_
  // Fault injection (stall_burst): notes a receive, and whether the last
  // stall_burst of them came within kStallWindowMs.
  void NoteForStall(uint64_t rx_ns);
  std::vector<uint64_t> recent_rx_;
  bool stall_now_ = false;
  std::mutex events_mu_;
  std::vector<ResponderEvent> events_;  // under events_mu_
};

}  // namespace rdmascope::probes
