// A failed probe operation as recorded for reports: a failed work completion
// (status != SUCCESS) or the prober's own deadline expiring.
//
// Contract: `explanation` is built from the WC status table (meaning, the
// most likely cause and the first check); a deadline record has status
// kDeadlineStatus and says that no completion arrived. The QP numbers are
// stamped by the prober that records the error (RecordError, prober.h); 0
// means not known (no QP yet, e.g. a failed connect).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rdmascope::probes {

constexpr int kDeadlineStatus = -1;   // no completion before the prober's deadline
constexpr int kConnectStatus = -2;    // control-port / QP setup failure

struct ProbeError {
  int status = 0;              // enum ibv_wc_status, or kDeadlineStatus / kConnectStatus
  std::string status_name;     // "RETRY_EXC_ERR", "PROBE_DEADLINE", "CONNECT"
  uint32_t vendor_err = 0;
  std::string opcode;          // what was posted: "SEND", "RECV", "RDMA_READ"
  double wall_ms = 0;          // when it was seen, ms since the epoch
  double after_ms = 0;         // time from post to completion (or to the deadline)
  std::optional<double> since_post_us;  // the same in microseconds; unset when nothing was posted
  uint32_t local_qpn = 0;      // the prober's QP (UD probe QP or RC QP); 0 = none yet
  uint32_t remote_qpn = 0;     // the target's QP it talked to (UD echo QP or RC responder QP)
  std::string explanation;
  uint64_t probe_index = 0;   // how many probes had been recorded when it happened

  // "RETRY_EXC_ERR (12)": the key used for errors-by-status counts.
  std::string Key() const;
};

// Record for a failed completion of `status` on an operation of `opcode`.
ProbeError WcFailure(int status, uint32_t vendor_err, const std::string& opcode,
                     double after_ms);
// Record for a deadline that expired waiting for `opcode` after `after_ms`.
ProbeError DeadlineFailure(const std::string& opcode, double after_ms);
// Record for a failed (re)connect with the error text.
ProbeError ConnectFailure(const std::string& message);

}  // namespace rdmascope::probes
