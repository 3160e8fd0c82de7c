// RC responder: every RC session of the agent, served by a few threads.
//
// Contract: Connect() builds one RC QP to the prober's endpoint (INIT->RTR->
// RTS, receives pre-posted) and returns the reply for the prober (without the
// read buffer fields). The TCP control connection is not needed afterwards:
// a session lives until (a) no probe arrived for limits.idle_ns, (b) its QP
// fails (an error completion), (c) an rc_connect with the same prober
// session key replaces it, (d) the table is full and it is the oldest idle
// session (rc_session_table.h), or (e) Stop(). A full table is an error
// naming the cap.
//
// Sessions are grouped in shards of at most kSessionsPerShard per device:
// one CQ (with completion channel), one registered slab of receive/send
// slots and one thread per shard, so 2,000 sessions cost 8 threads and 8
// channel fds, not 2,000. A shard found empty at its once-a-second check
// frees its CQ, slab and thread. Each shard's CQ holds kSlotsPerSession entries per
// session, the most its QPs can have outstanding, so it cannot overflow.
// Every received SEND is echoed as a solicited SEND: a valid probe message
// becomes an echo carrying the responder's delay T4 - T3 (T3: the receive
// completion, T4: just before the post; in device ticks when the CQ has
// timestamps, else host time from the poll that found it: never one clock
// against the other), other bytes are echoed unchanged. After each
// completion a shard keeps polling for the hot window of `spin` before
// sleeping for solicited completions only; one echo in kSignalEvery asks for
// a send completion. With `inject_rnr` (self-tests) no receive is ever
// posted, so the prober's SENDs end in RNR_RETRY_EXC_ERR. The pool must be
// destroyed before the PDs and contexts it was given.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "probes/adaptive_spin.h"
#include "probes/completion_queue.h"
#include "probes/control_protocol.h"
#include "probes/local_port.h"
#include "probes/rc_session_table.h"

namespace rdmascope::probes {

class RcResponderPool {
 public:
  static constexpr uint32_t kRecvSlots = 8;   // per session
  static constexpr uint32_t kSendSlots = 16;  // per session: room for one signalled send in 8
  static constexpr uint32_t kSlotsPerSession = kRecvSlots + kSendSlots;
  static constexpr size_t kSlotBytes = 64;
  static constexpr uint32_t kSessionsPerShard = 256;

  struct Options {
    RcSessionLimits limits;
    bool inject_rnr = false;
    ResponderSpin spin;
    // The number the device's next async event will get (ContextEventReader::
    // NextSeq), noted before each shard's CQ is made; none: 0.
    std::function<uint64_t()> event_seq;
  };

  explicit RcResponderPool(Options o);
  ~RcResponderPool();
  RcResponderPool(const RcResponderPool&) = delete;
  RcResponderPool& operator=(const RcResponderPool&) = delete;

  // `key`: the prober's session id ("" from probers that send none).
  Result<RcConnectReply> Connect(ibv_context* ctx, ibv_pd* pd, const LocalPort& local,
                                 const RcConnectRequest& req);
  // An async CQ_ERR on `cq`, event number `seq`: when it is the CQ of a
  // working shard made before that event, the shard's thread ends its
  // sessions within a second (their probers connect again, to a new shard)
  // and true is returned; false otherwise.
  bool FailCq(const ibv_cq* cq, uint64_t seq);
  // True when a live session's QP has number `qpn`.
  bool HasQp(uint32_t qpn) const;
  // Ends every shard thread and destroys every session; idempotent.
  void Stop();

  size_t sessions() const;
  size_t shards() const;

 private:
  struct Shard;
  struct Session;
  using Retired = std::vector<std::unique_ptr<Session>>;

  // Under mu_: a shard of ctx with a free slot (made when none), and the slot.
  Result<std::pair<Shard*, uint32_t>> ReserveLocked(ibv_context* ctx, ibv_pd* pd);
  // Under mu_: takes session `id` out of the maps (the table too) into `out`.
  void DetachLocked(uint64_t id, Retired& out);
  // Destroys the QPs, then gives their slots back (takes mu_).
  void Retire(Retired& r);
  void ServeShard(Shard* shard);
  // Under mu_: one completion of `shard`.
  void HandleLocked(Shard* shard, const Completion& c, Retired& dead);

  Options opts_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  RcSessionTable table_;                               // under mu_
  std::map<uint64_t, std::unique_ptr<Session>> live_;  // under mu_
  std::vector<std::unique_ptr<Shard>> shards_;         // under mu_; only grows until Stop()
};

}  // namespace rdmascope::probes
