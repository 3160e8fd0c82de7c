// Runs a child process for a test and captures what it prints.
//
// Contract: stdout and stderr are read through pipes (no scratch files, so
// tests running in parallel never read each other's output); stdin is
// /dev/null; the child is killed (SIGKILL) when it has not exited within
// timeout_ms, and `timed_out` says so. exit_code is the exit status, or
// 128 + signal when the child was killed by a signal, or -1 when it could not
// be started (`err` then says why).
#pragma once

#include <string>
#include <vector>

namespace rdmascope::testsupport {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
  bool timed_out = false;
};

// argv[0] is looked up on PATH when it has no '/'.
CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_ms = 60000,
                         const std::string& stdin_text = "");

// `/bin/sh -c command_line`, for tests that need a shell's word splitting.
CommandResult RunShell(const std::string& command_line, int timeout_ms = 60000);

}  // namespace rdmascope::testsupport
