// rdmactl as a user's terminal runs it, for tests that define RDMACTL_PATH.
#pragma once

#include <string>

#include "tests/support/run_command.h"

namespace rdmascope::collector::testing {

struct CliRun {
  int code = -1;
  std::string out;
};

// rdmactl with stderr merged into stdout; at most 30 s.
inline CliRun Rdmactl(const std::string& args) {
  auto res = rdmascope::testsupport::RunShell(std::string(RDMACTL_PATH) + " " + args + " 2>&1", 30000);
  return CliRun{res.exit_code, res.out};
}

}  // namespace rdmascope::collector::testing
