// rdmascope-collector as a child process on a loopback ephemeral port, for
// crash tests and the benchmark. Its stderr goes to a file; the port is read
// from its "listening on" line (waited for with a deadline).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace rdmascope::collector::testing {

class ChildCollector {
 public:
  ChildCollector() = default;
  ChildCollector(const ChildCollector&) = delete;
  ChildCollector& operator=(const ChildCollector&) = delete;
  ~ChildCollector() { Kill(SIGKILL); }

  // Starts `binary` with `args` plus --listen 127.0.0.1:0; returns the port, or -1
  // (with the log's text in *why) when it did not report listening within timeout_ms.
  int Start(const std::string& binary, std::vector<std::string> args, const std::string& log_path, int timeout_ms,
            std::string* why) {
    log_path_ = log_path;
    args.insert(args.begin(), {binary, "--listen", "127.0.0.1:0"});
    pid_ = fork();
    if (pid_ == 0) {
      FILE* f = std::freopen(log_path.c_str(), "w", stderr);
      (void)f;
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    const std::string marker = "listening on 127.0.0.1:";
    while (std::chrono::steady_clock::now() < deadline) {
      std::string log = Log();
      size_t at = log.find(marker);
      if (at != std::string::npos && log.find(',', at) != std::string::npos)
        return std::stoi(log.substr(at + marker.size()));
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (why) *why = "collector did not start: " + Log();
    return -1;
  }

  void Kill(int sig) {
    if (pid_ <= 0) return;
    kill(pid_, sig);
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_status_ = status;
    pid_ = -1;
  }
  int exit_status() const { return exit_status_; }

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
