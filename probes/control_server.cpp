#include "probes/control_server.h"

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

Result<std::unique_ptr<ControlServer>> ControlServer::Start(int port, Handler handler,
                                                            const std::vector<std::string>& addrs) {
  std::unique_ptr<ControlServer> s(new ControlServer());
  for (const std::string& a : addrs.empty() ? std::vector<std::string>{""} : addrs) {
    auto fd = TcpListen(port, a);
    if (!fd.ok()) return fd.status();
    s->listen_fds_.push_back(std::move(fd).value());
  }
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
  while (!stop_.load()) {
    Reap(false);
    std::vector<pollfd> ps;
    for (const auto& fd : listen_fds_) ps.push_back({fd.get(), POLLIN, 0});
    int pr = ::poll(ps.data(), nfds_t(ps.size()), 100);
    if (pr <= 0) continue;
    for (const pollfd& p : ps) {
      if (p.revents & POLLIN) Accept(p.fd);
    }
  }
}

void ControlServer::Accept(int listen_fd) {
  int cfd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (cfd < 0) return;  // EAGAIN, ECONNABORTED, EMFILE: try again next round
  int one = 1;
  setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // A peer that vanished without a FIN (power loss, partition) holds an RC
  // session's connection: keepalive finds it within kKeepIdleS + 3 x kKeepIntvlS.
  int idle = kKeepIdleS, intvl = kKeepIntvlS, cnt = 3;
  setsockopt(cfd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  setsockopt(cfd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(cfd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  setsockopt(cfd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  auto conn = std::make_shared<LineConn>(UniqueFd(cfd));
  if (workers_.size() >= size_t(kMaxConnections)) {
    conn->WriteLine(EncodeErrorReply("too many control connections"), NowNs() + 100000000ull);
    return;
  }
  auto w = std::make_unique<Worker>();
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
