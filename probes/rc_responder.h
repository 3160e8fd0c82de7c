// RC responder session: one RC QP serving one prober, for as long as the
// prober keeps its control connection open.
//
// Contract: Create() builds the QP to the prober's endpoint (INIT->RTR->RTS)
// and pre-posts receives; Serve() echoes every SEND it receives back as a
// solicited SEND: a valid probe message becomes an echo carrying the
// responder's delay T4 - T3 (T3: the receive completion, device time when the
// CQ has it, else the poll that found it; T4: just before the post), other
// bytes are echoed unchanged. It returns when the control connection closes,
// `stop` is set, or the QP fails. After each completion it keeps polling for
// the hot window of `spin` before sleeping for solicited completions only;
// one echo in kSignalEvery asks for a send completion. The destructor frees QP, CQ and buffers.
// With `inject_rnr` (fault injection for self-tests) no receive is ever
// posted, so the prober's SENDs end in RNR_RETRY_EXC_ERR.
// The read-only buffer the prober RDMA READs belongs to the caller.
#pragma once

#include <atomic>
#include <memory>

#include "common/status.h"
#include "probes/adaptive_spin.h"
#include "probes/completion_queue.h"
#include "probes/control_protocol.h"
#include "probes/line_socket.h"
#include "probes/local_port.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

class RcResponderSession {
 public:
  static Result<std::unique_ptr<RcResponderSession>> Create(ibv_context* ctx, ibv_pd* pd,
                                                            const LocalPort& local,
                                                            const RcConnectRequest& req,
                                                            bool inject_rnr,
                                                            const ResponderSpin& spin = {});
  ~RcResponderSession();

  // The reply to send the prober (without the read buffer fields).
  RcConnectReply Reply() const;

  void Serve(LineConn& conn, const std::atomic<bool>& stop);

 private:
  RcResponderSession() = default;
  Status PostRecv(uint32_t slot);

  LocalPort local_;
  uint32_t psn_ = 0;
  std::unique_ptr<CompletionQueue> cq_;
  QpPtr qp_;
  Buffer buf_;
  ResponderSpin spin_;
};

}  // namespace rdmascope::probes
