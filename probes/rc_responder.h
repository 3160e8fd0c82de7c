// RC responder session: one RC QP serving one prober, for as long as the
// prober keeps its control connection open.
//
// Contract: Create() builds the QP to the prober's endpoint (INIT->RTR->RTS)
// and pre-posts receives; Serve() echoes every SEND it receives back as a
// SEND of the same bytes and returns when the control connection closes,
// `stop` is set, or the QP fails. The destructor frees QP, CQ and buffers.
// With `inject_rnr` (fault injection for self-tests) no receive is ever
// posted, so the prober's SENDs end in RNR_RETRY_EXC_ERR.
// The read-only buffer the prober RDMA READs belongs to the caller.
#pragma once

#include <atomic>
#include <memory>

#include "common/status.h"
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
                                                            bool inject_rnr);
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
  uint32_t send_next_ = 0;
};

}  // namespace rdmascope::probes
