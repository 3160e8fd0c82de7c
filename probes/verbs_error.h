// Error values for failed verbs and system calls.
//
// Contract: every message names the failing call and the errno text and number,
// e.g. "ibv_create_qp: Cannot allocate memory (errno 12)". Verbs that return
// an errno directly (ibv_modify_qp, ibv_post_send, ...) pass it as `err`.
#pragma once

#include <string>

#include "common/status.h"

namespace rdmascope::probes {

// Message for `call` failing with `err`; `detail` (optional) is appended.
std::string ErrnoMessage(const std::string& call, int err, const std::string& detail = "");

// Status::Error(ErrnoMessage(...)).
Status ErrnoStatus(const std::string& call, int err, const std::string& detail = "");

}  // namespace rdmascope::probes
