// libFuzzer harness: one HTTP connection's bytes, as a stranger or an agent
// sends them, to the collector's real API server (in this process, on a
// loopback port the kernel chose) over an in-memory store. It covers the
// request line and header parsing, the request guard, Authorization (bearer
// and Basic token lookup for writers and readers), the Date header's clock
// check, the query parameters of every GET route and the report route.
//
// Findings: a crash or sanitizer report in any server thread; an answer that
// is not an HTTP status line; a 500 (the store is in memory and healthy, so a
// 500 is a handler that threw on its input); no close within 8 s. The server
// serves one request per connection. The harness ends its side once the
// input is sent: the front closes a connection whose head ends unfinished,
// and a complete head goes to a worker whose read timeout is 0 here, so a
// body cut short is refused at once instead of waiting for more.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "collector/http/api_server.h"
#include "collector/store/storage.h"

namespace {

using rdmascope::collector::ApiOptions;
using rdmascope::collector::ApiServer;
using rdmascope::collector::Storage;

// Tokens the dictionary (http_request.dict) also knows, so the fuzzer reaches
// the authorized paths: a node token, a fleet token and a read token.
constexpr char kNodeToken[] = "node-token-0001";
constexpr char kFleetToken[] = "fleet-token-0002";
constexpr char kReadToken[] = "read-token-0003";

struct Collector {
  std::unique_ptr<Storage> store;
  std::unique_ptr<ApiServer> server;
  std::thread thread;
  int port = -1;
};

Collector& TheCollector() {
  static Collector* c = [] {
    auto* c = new Collector;  // lives until exit: server threads may still run at exit
    rdmascope::collector::StoreOptions so;
    so.path = ":memory:";
    auto s = Storage::Open(so);
    if (!s.ok()) __builtin_trap();
    c->store = std::move(s).value();
    ApiOptions o;
    o.tokens = {{"node-a", kNodeToken}, {"*", kFleetToken}};
    o.read_tokens = {{"*", kReadToken}};
    o.max_body_bytes = 64 << 10;
    o.http_workers = 2;
    o.http_timeout_s = 0;
    o.http_head_timeout_ms = 1000;  // a backstop: an unfinished head ends with the harness's shutdown
    o.now_ms = [] { return int64_t{1'800'000'000'000}; };
    o.log = [](const std::string&) {};
    c->server = std::make_unique<ApiServer>(*c->store, o);
    auto port = c->server->Bind("127.0.0.1", 0);
    if (!port.ok()) __builtin_trap();
    c->port = port.value();
    c->thread = std::thread([c] { c->server->Listen(); });
    if (!c->server->WaitUntilReady(10000)) __builtin_trap();
    return c;
  }();
  return *c;
}

// Sends `bytes` and returns everything the server answered until it closed;
// traps when that takes longer than 8 s.
std::string Exchange(int port, const uint8_t* data, size_t size) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = -1;
  while (true) {  // the harness's own connection failing is no finding: retry until the deadline
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) break;
    const int err = errno;
    if (fd >= 0) ::close(fd);
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "cannot connect to the server for 8 s: %s\n", std::strerror(err));
      __builtin_trap();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Closed with a reset, so thousands of connections a second leave no
  // TIME_WAIT behind to use up the machine's ephemeral ports.
  const linger reset{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  std::string answer;
  size_t sent = 0;
  char buf[4096];
  while (true) {
    pollfd p{fd, static_cast<short>(POLLIN | (sent < size ? POLLOUT : 0)), 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      std::fprintf(stderr, "no close within 8 s; answer so far: %.200s\n", answer.c_str());
      __builtin_trap();
    }
    if (::poll(&p, 1, static_cast<int>(left.count())) < 0) continue;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;  // closed (or reset after an early answer)
      answer.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (p.revents & POLLOUT) {
      ssize_t n = ::send(fd, data + sent, size - sent, MSG_NOSIGNAL);
      if (n < 0) {  // the server closed early: stop sending, read its answer
        sent = size;
        continue;
      }
      sent += static_cast<size_t>(n);
      if (sent == size) ::shutdown(fd, SHUT_WR);  // all of the input: nothing more will come
    }
  }
  ::close(fd);
  return answer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A connection that sends nothing is held to the front's head deadline:
  // no request to judge, only time lost.
  if (size == 0) return 0;
  Collector& c = TheCollector();
  const std::string answer = Exchange(c.port, data, size);
  static const bool show = std::getenv("RDMASCOPE_FUZZ_SHOW_ANSWERS") != nullptr;  // for checking seeds by hand
  if (show) std::fprintf(stderr, "answer: %.300s\n", answer.c_str());
  // One request per connection, so one answer: its status line is at the
  // start (a refusal's body may quote a header holding any text).
  if (answer.rfind("HTTP/1.1 500 ", 0) == 0) {
    std::fprintf(stderr, "500 answer: %.400s\n", answer.c_str());
    __builtin_trap();
  }
  if (!answer.empty() && answer.rfind("HTTP/1.1 ", 0) != 0) {
    std::fprintf(stderr, "answer is no HTTP status line: %.200s\n", answer.c_str());
    __builtin_trap();
  }
  return 0;
}
