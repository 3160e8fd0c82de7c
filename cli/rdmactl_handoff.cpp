#include "cli/rdmactl_handoff.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace rdmascope::cli {

std::vector<std::string> FullBinaryCandidates(const std::string& self_exe, const std::string& libexec_dir) {
  std::vector<std::string> out;
  const size_t slash = self_exe.rfind('/');
  if (slash != std::string::npos) out.push_back(self_exe.substr(0, slash + 1) + "rdmactl-full");
  if (!libexec_dir.empty()) {
    std::string p = libexec_dir + "/rdmactl-full";
    if (out.empty() || out.front() != p) out.push_back(p);
  }
  return out;
}

std::string ExecFull(char** argv) {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string self_exe = n > 0 ? std::string(self, size_t(n)) : std::string();
  std::string tried;
  for (const std::string& path : FullBinaryCandidates(self_exe, RDMASCOPE_LIBEXEC_DIR)) {
    execv(path.c_str(), argv);
    tried += (tried.empty() ? "" : "; ") + path + ": " + std::strerror(errno);
  }
  return "cannot run rdmactl-full, which runs every command but `fabric` (" + tried +
         "): reinstall the rdmascope-agent package, or keep rdmactl-full beside rdmactl";
}

}  // namespace rdmascope::cli
