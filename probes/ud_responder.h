// UD echo responder: one UD QP on one port. Each valid probe is echoed at
// once to its sender with the responder's own receive->send delay in it.
//
// Contract: Run() loops until `stop` is set (checked at least every 100 ms).
// After each completion it keeps polling for the hot window of `spin`, then
// sleeps on the completion channel armed for solicited completions only (the
// probers send probes solicited; our own echo completions wake nobody). The
// delay T4 - T3 runs from the receive completion (its device timestamp in host
// time when the CQ has one, else the poll that found it) to just before
// ibv_post_send. One echo in kSignalEvery is signalled. Reply address handles
// live in an LRU of kMaxAhCache entries; an entry still used by an echo in
// flight is never evicted. With `drop` set (fault
// injection for self-tests) probes are received and not echoed. Errors inside
// the loop are counted and logged, never thrown.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "probes/adaptive_spin.h"
#include "probes/completion_queue.h"
#include "probes/lru_cache.h"
#include "probes/send_signal.h"
#include "probes/control_protocol.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

// Cache key for the reply address handle of a UD receive: everything
// ibv_init_ah_from_wc builds the AH from. `hdr` is the 40-byte network header
// area in front of the message, which holds either a GRH (InfiniBand, RoCE v1,
// RoCE v2 over IPv6) or, for RoCE v2 over IPv4, 20 undefined bytes followed by
// the IPv4 header (rdma-core decides the same way: GRH version 6 unless a valid
// IPv4 header sits at byte 20). The key holds the header kind, traffic class
// (and flow label) and the source and destination addresses, plus `slid`; two
// senders never share a key, and one sender's packets always do.
std::string UdReplyAhKey(const uint8_t* hdr, uint16_t slid);

class UdResponder {
 public:
  // `ctx` and `pd` must outlive the responder.
  static Result<std::unique_ptr<UdResponder>> Create(ibv_context* ctx, ibv_pd* pd,
                                                     const std::string& device, int port,
                                                     bool drop, const ResponderSpin& spin = {});
  ~UdResponder();

  uint32_t qpn() const { return qp_->qp_num; }
  int port() const { return port_; }
  const std::string& device() const { return device_; }
  uint64_t echoed() const { return echoed_.load(); }

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

  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  std::string device_;
  int port_ = 1;
  bool drop_ = false;
  std::unique_ptr<CompletionQueue> cq_;
  QpPtr qp_;
  Buffer buf_;
  ResponderSpin spin_;
  SendSignaler sends_;
  LruCache<CachedAh> ah_cache_;  // key: UdReplyAhKey
  std::atomic<uint64_t> echoed_{0};
};

}  // namespace rdmascope::probes
