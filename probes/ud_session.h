// UD probing of one target with resources that outlive a run: the agent
// probes a target interval after interval on the same UD QP, CQ, buffer and
// address handle, and builds them again only after a device error.
//
// Contract: Open() builds CQ, QP (in RTS, receives posted) and buffer on a
// RailDevice and does not talk to the target. Resolve() asks the target's
// control port for its UD endpoints (ud_info) and makes the address handle;
// when it fails the endpoint known before (if any) stays in use. Run() sends
// opts.count probes to the resolved endpoint in bursts of opts.burst
// (ProberOptions::burst; inside a burst each probe leaves after the previous
// one is finished, or opts.interval_ms after it left if that is sooner), a
// burst every opts.burst x opts.interval_ms
// whether or not the echoes of earlier ones are in (at most 8 awaiting
// theirs; interval 0: one at a time, the next after the echo or the
// deadline); each waits opts.timeout_ms for its echo, and silence is loss.
// Each run uses a new
// session id, so a late echo of an earlier run is never counted. A verbs
// call that fails ends Run() with an error, and any failed completion marks
// the session broken(): its QP is in the error state and the owner must
// build a new session (on a new RailDevice when the device failed).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "common/status.h"
#include "probes/adaptive_spin.h"
#include "probes/completion_queue.h"
#include "probes/prober.h"
#include "probes/rail_device.h"
#include "probes/send_signal.h"

namespace rdmascope::probes {

// One probe sent and not finished (UdSession::Run's bookkeeping).
struct UdPending {
  uint64_t seq = 0, send_k = 0, t0 = 0, deadline = 0;
  bool send_done = false;
  ProbeSample sample;
  std::optional<uint64_t> send_ticks, echo_ticks;  // device completion timestamps (T2, T5)
};

class UdSession {
 public:
  static Result<std::unique_ptr<UdSession>> Open(std::shared_ptr<RailDevice> dev);
  ~UdSession();

  Status Resolve(const ProberOptions& opts);
  bool resolved() const { return ah_ != nullptr; }
  bool broken() const { return broken_; }
  const std::shared_ptr<RailDevice>& device() const { return dev_; }
  uint32_t qpn() const { return qp_->qp_num; }
  const ibv_cq* cq() const { return cq_->cq(); }
  // The device's event number noted before its QP and CQ were made
  // (RailDevice::TakeFailure).
  uint64_t born_seq() const { return born_seq_; }

  Result<ProbeRun> Run(const ProberOptions& opts);

 private:
  explicit UdSession(std::shared_ptr<RailDevice> dev);
  Status PostRecv(uint32_t slot);
  // Posts probe `seq` (T2 taken just before ibv_post_send).
  Result<UdPending> Send(uint64_t seq, uint64_t session, const ProberOptions& o);

  std::shared_ptr<RailDevice> dev_;  // declared first: outlives everything below
  std::unique_ptr<CompletionQueue> cq_;
  Buffer buf_;
  QpPtr qp_;  // declared after cq_ and buf_: destroyed before them
  AhPtr ah_;
  UdEndpointInfo target_;
  uint32_t qkey_ = 0;
  SendSignaler sends_;
  bool broken_ = false;
  uint64_t born_seq_ = 0;
  std::vector<Completion> batch_;
  std::optional<AdaptiveSpin> spin_;  // the prober's spin, calibrated run after run (without primers)
  uint64_t spin_ns_ = 0;
};

}  // namespace rdmascope::probes
