#include "probes/control_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>

#include "probes/control_protocol.h"
#include "probes/probe_clock.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

namespace {

// The numeric address of a peer; an IPv4-mapped IPv6 address as its IPv4
// form, so one host counts once whichever listener it reached.
std::string PeerAddress(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (a.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&a)->sin_addr, text, sizeof text);
  } else if (a.ss_family == AF_INET6) {
    const in6_addr& v6 = reinterpret_cast<const sockaddr_in6*>(&a)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&v6)) ::inet_ntop(AF_INET, &v6.s6_addr[12], text, sizeof text);
    else ::inet_ntop(AF_INET6, &v6, text, sizeof text);
  }
  return text;
}

}  // namespace

Result<std::unique_ptr<ControlServer>> ControlServer::Start(int port, Handler handler,
                                                            const std::vector<std::string>& addrs,
                                                            int queue_wait_ms, int max_per_peer) {
  return Listen(port, std::move(handler), addrs, queue_wait_ms, max_per_peer, nullptr);
}

Result<std::unique_ptr<ControlServer>> ControlServer::StartOnAny(int port, Handler handler,
                                                                 const std::vector<std::string>& addrs,
                                                                 std::vector<std::string>* unbound) {
  return Listen(port, std::move(handler), addrs, kQueueWaitMs, kMaxPerPeer, unbound);
}

Result<std::unique_ptr<ControlServer>> ControlServer::Listen(int port, Handler handler,
                                                             const std::vector<std::string>& addrs,
                                                             int queue_wait_ms, int max_per_peer,
                                                             std::vector<std::string>* unbound) {
  std::unique_ptr<ControlServer> s(new ControlServer());
  s->queue_wait_ms_ = queue_wait_ms;
  s->max_per_peer_ = max_per_peer;
  Status last = Status::Ok();
  for (const std::string& a : addrs.empty() ? std::vector<std::string>{""} : addrs) {
    auto fd = TcpListen(port, a);
    if (!fd.ok()) {
      if (!unbound) return fd.status();
      unbound->push_back(fd.status().message());  // the bind error names the address
      last = fd.status();
      continue;
    }
    s->listen_fds_.push_back(std::move(fd).value());
  }
  if (s->listen_fds_.empty()) return last;
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(s->listen_fds_.front().get(), reinterpret_cast<sockaddr*>(&bound), &len) != 0)
    return ErrnoStatus("getsockname", errno, "control port listener");
  s->port_ = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);  // same offset for IPv6
  s->handler_ = std::move(handler);
  s->accept_thread_ = std::thread([p = s.get()] { p->AcceptLoop(); });
  return s;
}

ControlServer::~ControlServer() { Stop(); }

void ControlServer::Stop() {
  stop_.store(true);
  if (accept_thread_.joinable()) accept_thread_.join();
  Reap(true);
}

void ControlServer::Reap(bool all) {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (all || (*it)->done.load()) {
      if ((*it)->thread.joinable()) (*it)->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void ControlServer::AcceptLoop() {
  uint64_t full_since_ns = 0;
  while (!stop_.load()) {
    Reap(false);
    const bool full = workers_.size() >= size_t(kMaxConnections);
    if (!full) full_since_ns = 0;
    else if (full_since_ns == 0) full_since_ns = NowNs();
    // Full: connections wait in the backlog; refuse them only after the
    // handlers stayed busy for queue_wait_ms_.
    const bool refuse = full && NowNs() - full_since_ns >= uint64_t(queue_wait_ms_) * 1000000ull;
    if (full && !refuse) {
      ::poll(nullptr, 0, 10);
      continue;
    }
    std::vector<pollfd> ps;
    for (const auto& fd : listen_fds_) ps.push_back({fd.get(), POLLIN, 0});
    int pr = ::poll(ps.data(), nfds_t(ps.size()), refuse ? 10 : 100);
    if (pr <= 0) continue;
    for (const pollfd& p : ps) {
      if (!(p.revents & POLLIN)) continue;
      if (refuse) Refuse(p.fd);
      else Accept(p.fd);
    }
  }
}

void ControlServer::Refuse(int listen_fd) {
  int cfd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (cfd < 0) return;
  RefuseConn(UniqueFd(cfd), "too many control connections at once: all " + std::to_string(kMaxConnections) +
                                " setup handlers stayed busy for " + std::to_string(queue_wait_ms_) +
                                " ms; retry later");
}

void ControlServer::RefuseConn(UniqueFd fd, const std::string& error) {
  // What the peer already sent is read first: closing with unread input
  // would reset the connection and could destroy the error line in flight.
  char junk[1024];
  for (int i = 0; i < 8 && ::recv(fd.get(), junk, sizeof junk, 0) > 0; ++i) {
  }
  LineConn conn(std::move(fd));
  conn.WriteLine(EncodeErrorReply(error), NowNs() + 100000000ull);
  ::shutdown(conn.fd(), SHUT_WR);
}

void ControlServer::Accept(int listen_fd) {
  sockaddr_storage peer_addr{};
  socklen_t peer_len = sizeof peer_addr;
  int cfd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer_addr), &peer_len, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (cfd < 0) return;  // EAGAIN, ECONNABORTED, EMFILE: try again next round
  const std::string peer = PeerAddress(peer_addr);
  int held = 0;
  for (const auto& w : workers_) held += !w->done.load() && w->peer == peer ? 1 : 0;
  if (held >= max_per_peer_) {
    RefuseConn(UniqueFd(cfd), "too many control connections from " + peer + " at once: at most " +
                                  std::to_string(max_per_peer_) + " per address; retry later");
    return;
  }
  int one = 1;
  setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // A peer that vanished without a FIN (power loss, partition) in the middle
  // of a setup: keepalive finds it within kKeepIdleS + 3 x kKeepIntvlS.
  int idle = kKeepIdleS, intvl = kKeepIntvlS, cnt = 3;
  setsockopt(cfd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  setsockopt(cfd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(cfd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  setsockopt(cfd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  auto conn = std::make_shared<LineConn>(UniqueFd(cfd));
  auto w = std::make_unique<Worker>();
  w->peer = peer;
  Worker* wp = w.get();
  w->thread = std::thread([this, conn, wp] {
    try {
      handler_(*conn, stop_);
    } catch (const std::exception& e) {  // a handler bug must not take the server down
      std::fprintf(stderr, "control connection: %s\n", e.what());
    }
    wp->done.store(true);
  });
  workers_.push_back(std::move(w));
}

}  // namespace rdmascope::probes
