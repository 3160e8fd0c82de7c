// One RC connection from a prober to a target agent: the QP, its CQ and
// buffers (and, with an agent older than idle-timed sessions, the control
// connection, which such an agent ties its QP to).
//
// Contract: Connect() does TCP connect -> ud_info -> rc_connect -> RTR/RTS
// with the given deadline for the whole exchange, naming the prober's
// `session` so the agent replaces this prober's previous QP. When the reply
// carries idle_timeout_ms the control connection is closed at once: the
// agent keeps its QP until that long passes without a probe
// (idle_timeout_ms() tells; 0 from an older agent). PingPong() and Read() run
// one operation each, wait at most timeout_ns, record every failed completion
// (the first failure in full; later WR_FLUSH_ERRs only counted) and return
// false when the QP must be torn down (failure or deadline). Probe SENDs are
// solicited and only one in kSignalEvery is signalled: the echo proves the
// SEND arrived, and failures complete whether signalled or not. Each wait
// spins ProberSpin(opts.spin_ns) (adaptive_spin.h) before sleeping. The echo carries the responder's delay,
// recorded as responder_us.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "common/status.h"
#include "probes/adaptive_spin.h"
#include "probes/completion_queue.h"
#include "probes/line_socket.h"
#include "probes/prober.h"
#include "probes/send_signal.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

// The control half of RcPeer::Connect, apart from verbs: over `conn`
// (authenticating when opts.control_secret is set), ud_info in every page,
// the endpoint ChooseEndpoint picks for `local` (and opts.rail), then
// rc_connect for `req` aimed at that endpoint's GID. Returns the endpoint
// and the parsed reply; `seal` (when given) receives the session's seal.
struct RcSetup {
  UdEndpointInfo target;
  RcConnectReply reply;
};
Result<RcSetup> ExchangeRcSetup(LineConn& conn, const ProberOptions& opts, const LocalPort& local,
                                RcConnectRequest req, uint64_t deadline_ns);

class RcPeer {
 public:
  static Result<std::unique_ptr<RcPeer>> Connect(ibv_context* ctx, ibv_pd* pd,
                                                 const LocalPort& local,
                                                 const ProberOptions& opts,
                                                 UdEndpointInfo* target,
                                                 const std::string& session = "");
  ~RcPeer();

  bool PingPong(uint64_t seq, uint64_t timeout_ns, const ProberOptions& opts, ProbeRun& run,
                ProbeSample& sample);
  uint64_t idle_timeout_ms() const { return reply_.idle_timeout_ms; }
  bool Read(uint64_t timeout_ns, const ProberOptions& opts, ProbeRun& run, ProbeSample& sample);
  uint32_t local_qpn() const { return qp_->qp_num; }
  const ibv_cq* cq() const { return cq_->cq(); }
  uint32_t remote_qpn() const { return reply_.responder.qpn; }

 private:
  RcPeer();
  Status PostRecv(uint32_t slot);
  // Records a failed completion; returns true for the first failure of this QP.
  void RecordFailure(const Completion& c, uint64_t t0, const ProberOptions& opts, ProbeRun& run);
  const char* OpName(uint64_t wr_id) const;

  std::unique_ptr<LineConn> conn_;  // only with an agent older than idle-timed sessions
  std::unique_ptr<CompletionQueue> cq_;
  QpPtr qp_;
  Buffer buf_;
  RcConnectReply reply_;
  bool failed_ = false;
  SendSignaler sends_;
  AdaptiveSpin spin_;
};

}  // namespace rdmascope::probes
