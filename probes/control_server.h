// TCP control-port server: accepts connections and runs a handler for each on
// its own thread.
//
// Contract: at most kMaxConnections handlers run at once. Handlers are meant
// to be short (the agent's are setup exchanges: ud_info, rc_connect), so
// while all are busy new connections wait in the listen backlog (SOMAXCONN);
// only when every handler stayed busy for kQueueWaitMs is a waiting
// connection accepted and refused with a JSON error line saying so. One peer
// address holds at most max_per_peer (default kMaxPerPeer) handlers: beyond
// that its connections are accepted, refused at once with a JSON error line
// naming the cap and closed, so one host cannot take the handlers every
// other prober needs (handlers bound each connection's life: see the
// responder). Stop() (also the destructor) sets the
// stop flag handlers must honour, then joins the accept thread and every
// handler thread. A handler's failure never stops the server. Accepted
// connections have TCP keepalive (a silent dead peer is noticed in ~90 s).
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "probes/line_socket.h"

namespace rdmascope::probes {

class ControlServer {
 public:
  using Handler = std::function<void(LineConn& conn, const std::atomic<bool>& stop)>;
  static constexpr int kMaxConnections = 64;  // concurrent handlers (setups), not sessions
  static constexpr int kMaxPerPeer = 16;      // handlers one peer address may hold
  static constexpr int kQueueWaitMs = 2000;
  static constexpr int kKeepIdleS = 60;   // TCP keepalive on every accepted connection
  static constexpr int kKeepIntvlS = 10;

  // port 0 takes a free port from the kernel; port() tells which (of the
  // first address). `addrs`: numeric addresses to listen on; none = every
  // IPv4 address. `queue_wait_ms`: how long every handler must stay busy
  // before waiting connections are refused. Fails when any address cannot
  // be bound.
  static Result<std::unique_ptr<ControlServer>> Start(int port, Handler handler,
                                                      const std::vector<std::string>& addrs = {},
                                                      int queue_wait_ms = kQueueWaitMs,
                                                      int max_per_peer = kMaxPerPeer);
  // As Start, but an address that cannot be bound is left out and its error
  // (which names it) added to *unbound; fails only when none can be bound.
  static Result<std::unique_ptr<ControlServer>> StartOnAny(int port, Handler handler,
                                                           const std::vector<std::string>& addrs,
                                                           std::vector<std::string>* unbound);
  ~ControlServer();
  // The TCP port the server listens on.
  int port() const { return port_; }
  void Stop();

 private:
  // Start's and StartOnAny's body: with `unbound` null, any address that
  // cannot be bound fails the start.
  static Result<std::unique_ptr<ControlServer>> Listen(int port, Handler handler, const std::vector<std::string>& addrs,
                                                       int queue_wait_ms, int max_per_peer,
                                                       std::vector<std::string>* unbound);
  struct Worker {
    std::thread thread;
    std::atomic<bool> done{false};
    std::string peer;  // the peer's address, numeric
  };
  ControlServer() = default;
  void AcceptLoop();
  void Accept(int listen_fd);
  // Accepts one waiting connection and answers it with the over-limit error.
  void Refuse(int listen_fd);
  // Answers an accepted connection with `error` and closes it.
  static void RefuseConn(UniqueFd fd, const std::string& error);
  void Reap(bool all);

  std::vector<UniqueFd> listen_fds_;
  int port_ = 0;
  int queue_wait_ms_ = kQueueWaitMs;
  int max_per_peer_ = kMaxPerPeer;
  Handler handler_;
  std::atomic<bool> stop_{false};
  std::thread accept_thread_;
  std::list<std::unique_ptr<Worker>> workers_;  // touched by the accept thread only, then Stop()
};

}  // namespace rdmascope::probes
