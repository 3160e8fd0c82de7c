#include "probes/wc_error.h"

#include "common/wc_status.h"
#include "probes/probe_clock.h"

namespace rdmascope::probes {

std::string ProbeError::Key() const {
  return status_name + " (" + std::to_string(status) + ")";
}

ProbeError WcFailure(int status, uint32_t vendor_err, const std::string& opcode, double after_ms) {
  ProbeError e;
  e.status = status;
  e.vendor_err = vendor_err;
  e.opcode = opcode;
  e.wall_ms = WallMs();
  e.after_ms = after_ms;
  e.since_post_us = after_ms * 1000.0;
  const WcStatusInfo* info = FindWcStatus(status);
  if (info == nullptr) {
    e.status_name = "UNKNOWN_STATUS";
    e.explanation = "status " + std::to_string(status) + " is not in the WC status table";
    return e;
  }
  e.status_name = std::string(info->short_name);
  e.explanation = std::string(info->meaning);
  if (!info->causes.empty()) e.explanation += " Likely cause: " + std::string(info->causes.front()) + ".";
  if (!info->checks.empty()) e.explanation += " Check: " + std::string(info->checks.front()) + ".";
  return e;
}

ProbeError DeadlineFailure(const std::string& opcode, double after_ms) {
  ProbeError e;
  e.status = kDeadlineStatus;
  e.status_name = "PROBE_DEADLINE";
  e.opcode = opcode;
  e.wall_ms = WallMs();
  e.after_ms = after_ms;
  e.since_post_us = after_ms * 1000.0;
  e.explanation =
      "No completion arrived before the prober's deadline. The peer process or QP is likely "
      "gone (on Soft-RoCE a killed peer produces no WC error), or the path drops packets. "
      "Check that the responder runs (rdmascope-agent), its control port answers, and the "
      "port state (rdma link show).";
  return e;
}

ProbeError ConnectFailure(const std::string& message) {
  ProbeError e;
  e.status = kConnectStatus;
  e.status_name = "CONNECT";
  e.opcode = "CONNECT";
  e.wall_ms = WallMs();
  e.explanation = message;
  return e;
}

}  // namespace rdmascope::probes
