#include "agent/daemon/daemon_log.h"

#include <cstdio>
#include <mutex>

namespace rdmascope::agent {

void StderrLog(const std::string& line) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(stderr, "rdmascope-agent: %s\n", line.c_str());
  std::fflush(stderr);
}

LogFn OrStderr(LogFn log) { return log ? log : LogFn(StderrLog); }

}  // namespace rdmascope::agent
