// The benchmarks' in-process collector: serve an ApiServer on a loopback
// ephemeral port from a background thread.
#pragma once

#include <cstdio>
#include <thread>

#include "collector/http/api_server.h"

namespace rdmascope::collector::bench {

// Binds 127.0.0.1:0, starts Listen() on *thread and waits until it serves;
// returns the port, or -1 after printing why to stderr (no thread left running).
inline int ServeInBackground(ApiServer& server, std::thread* thread) {
  auto port = server.Bind("127.0.0.1", 0);
  if (!port.ok()) {
    std::fprintf(stderr, "bind 127.0.0.1:0: %s\n", port.status().message().c_str());
    return -1;
  }
  *thread = std::thread([&server] { server.Listen(); });
  if (server.WaitUntilReady(5000)) return port.value();
  std::fprintf(stderr, "the in-process collector did not serve within 5 s\n");
  server.Stop();
  thread->join();
  return -1;
}

}  // namespace rdmascope::collector::bench
