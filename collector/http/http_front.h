// The collector's accepting front: it owns the listening socket and reads each
// request head itself, under limits, before any worker sees the connection.
//
// Contract:
//  - One thread (Run) accepts and reads heads on non-blocking sockets with
//    epoll, so an idle or trickling client costs a table entry, not a worker.
//  - At accept, a connection beyond max_connections in all, or beyond
//    max_per_client from its address, is answered 503 and closed before a byte
//    of it is read (over TLS it is closed: there is no session to answer on).
//  - The head (and a TLS handshake before it) must be complete within
//    head_timeout of the accept, within HeadLimits (http_head.h): otherwise the
//    client gets 408 / 414 / 431 / 400 and the connection is closed.
//  - A complete head goes to a worker with the bytes read so far; when every
//    worker is busy and max_queued connections wait, the connection is
//    answered 503 instead, without its body being read, and on_overloaded
//    is told the method and path.
//  - Every answer the front writes itself is {"error","detail"} JSON with
//    Connection: close; after it the front reads and discards what the client
//    still sends for up to a second, then closes, so that the answer is not
//    lost to a reset.
//  - Stop() from any thread: Run stops accepting, closes what it holds, lets
//    the workers finish the requests they have, and returns.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "collector/http/bounded_task_queue.h"
#include "collector/http/client_slots.h"
#include "collector/http/http_connection.h"
#include "collector/http/http_head.h"
#include "collector/http/tls_context.h"
#include "common/status.h"

namespace rdmascope::collector {

struct FrontOptions {
  HeadLimits head;
  std::chrono::milliseconds head_timeout{10000};
  size_t max_connections = 4096;  // open at once: heads being read, waiting, served
  size_t max_per_client = 64;     // of them from one client address
  size_t workers = 8;
  size_t max_queued = 256;  // complete heads waiting for a worker
  std::shared_ptr<TlsContext> tls;  // null: plain HTTP
};

// What the front refused so far, by reason.
struct FrontCounters {
  std::atomic<uint64_t> refused_full{0}, refused_client{0}, head_timeouts{0}, head_refused{0}, overloaded{0};
};

class HttpFront {
 public:
  using Serve = std::function<void(Connection&)>;  // on a worker; the connection closes after it
  using Overloaded = std::function<void(std::string_view method, std::string_view path)>;
  using Log = std::function<void(const std::string&)>;

  HttpFront(FrontOptions options, Serve serve, Overloaded on_overloaded, Log log);
  ~HttpFront();
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  // Binds and listens on host:port (0: an ephemeral port); the bound port.
  Result<int> Listen(const std::string& host, int port);
  // The event loop; returns after Stop(). False when it could not run.
  bool Run();
  void Stop();
  bool running() const { return running_.load(); }
  const FrontCounters& counters() const { return counters_; }

 private:
  enum class Phase { kHandshake, kHead, kLinger };
  struct Pending {
    std::shared_ptr<Connection> conn;
    HeadScanner scan;
    Phase phase;
    uint64_t id;
    size_t discarded = 0;  // bytes thrown away while lingering
  };
  using Clock = std::chrono::steady_clock;
  struct Deadline {
    Clock::time_point at;
    int fd;
    uint64_t id;
  };

  void AcceptAll();
  void OnEvent(int fd, uint32_t events);
  void ReadHead(int fd, Pending& p);
  void HandOff(int fd, Pending& p);
  // Writes status + {"error","detail"} and lingers; the entry stays until closed.
  void Answer(int fd, Pending& p, int status, const std::string& error, const std::string& detail);
  void Close(int fd);
  void Expire(Clock::time_point now);
  void Watch(int fd, uint32_t events, bool add);
  void Note(const std::string& what);  // a log line, at most one per kind per 10 s
  std::shared_ptr<Connection> Adopt(int fd, const std::string& ip, int port);

  FrontOptions options_;
  Serve serve_;
  Overloaded on_overloaded_;
  Log log_;
  ClientSlots slots_;
  BoundedTaskQueue pool_;
  FrontCounters counters_;
  int listen_fd_ = -1, epoll_fd_ = -1, stop_fd_ = -1, spare_fd_ = -1;
  std::atomic<bool> running_{false}, stopping_{false};
  std::unordered_map<int, Pending> pending_;
  std::deque<Deadline> head_deadlines_, linger_deadlines_;
  uint64_t next_id_ = 1;
  std::unordered_map<std::string, Clock::time_point> noted_;
};

}  // namespace rdmascope::collector
