// rdmascope-collector as a child process on a loopback ephemeral port, for
// crash tests and the benchmark. Its stderr goes to a file; the port is read
// from its "listening on" line (waited for with a deadline).
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/collector/child_process.h"

namespace rdmascope::collector::testing {

class ChildCollector : public ChildProcess {
 public:
  // Starts `binary` with `args` plus --listen 127.0.0.1:0; returns the port, or -1
  // (with the log's text in *why) when it did not report listening within timeout_ms.
  int Start(const std::string& binary, std::vector<std::string> args, const std::string& log_path, int timeout_ms,
            std::string* why) {
    args.insert(args.begin(), {binary, "--listen", "127.0.0.1:0"});
    Spawn(std::move(args), log_path);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    const std::string marker = "listening on 127.0.0.1:";
    while (std::chrono::steady_clock::now() < deadline) {
      std::string log = Log();
      size_t at = log.find(marker);
      if (at != std::string::npos && log.find(',', at) != std::string::npos)
        return std::stoi(log.substr(at + marker.size()));
      if (!Running()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (why) *why = "collector did not start: " + Log();
    return -1;
  }
};

}  // namespace rdmascope::collector::testing
