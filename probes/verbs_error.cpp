#include "probes/verbs_error.h"

#include <cstring>

namespace rdmascope::probes {

std::string ErrnoMessage(const std::string& call, int err, const std::string& detail) {
  std::string m = call + ": " + std::strerror(err) + " (errno " + std::to_string(err) + ")";
  if (!detail.empty()) m += " [" + detail + "]";
  return m;
}

Status ErrnoStatus(const std::string& call, int err, const std::string& detail) {
  return Status::Error(ErrnoMessage(call, err, detail));
}

}  // namespace rdmascope::probes
