// A test's child process: argv[0] exec'd with stderr to a log file. The
// destructor kills it (SIGKILL) so nothing outlives the test.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace rdmascope::collector::testing {

class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { Kill(SIGKILL); }

  void Spawn(std::vector<std::string> argv, const std::string& log_path) {
    log_path_ = log_path;
    pid_ = fork();
    if (pid_ == 0) {
      FILE* f = std::freopen(log_path.c_str(), "w", stderr);
      (void)f;
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }

  // False once the process has exited (and is reaped).
  bool Running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return true;
    exit_status_ = status;
    pid_ = -1;
    return false;
  }

  // Sends sig and waits for the exit.
  void Kill(int sig) {
    if (pid_ <= 0) return;
    kill(pid_, sig);
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_status_ = status;
    pid_ = -1;
  }

  // SIGTERM, then SIGKILL after grace_ms.
  void Stop(int grace_ms) {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
    while (Running() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Kill(SIGKILL);
  }

  int exit_status() const { return exit_status_; }
  pid_t pid() const { return pid_; }

  std::string Log() const {
    std::ifstream in(log_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  pid_t pid_ = -1;
  int exit_status_ = 0;
  std::string log_path_;
};

}  // namespace rdmascope::collector::testing
