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

Result<std::unique_ptr<ControlServer>> ControlServer::Start(int port, Handler handler) {
  auto fd = TcpListen(port);
  if (!fd.ok()) return fd.status();
  std::unique_ptr<ControlServer> s(new ControlServer());
  s->listen_fd_ = std::move(fd).value();
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(s->listen_fd_.get(), reinterpret_cast<sockaddr*>(&bound), &len) != 0)
    return ErrnoStatus("getsockname", errno, "control port listener");
  s->port_ = ntohs(bound.sin_port);
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
    pollfd p{listen_fd_.get(), POLLIN, 0};
    int pr = ::poll(&p, 1, 100);
    if (pr <= 0) continue;
    int cfd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (cfd < 0) continue;  // EAGAIN, ECONNABORTED, EMFILE: try again next round
    int one = 1;
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto conn = std::make_shared<LineConn>(UniqueFd(cfd));
    if (workers_.size() >= size_t(kMaxConnections)) {
      conn->WriteLine(EncodeErrorReply("too many control connections"), NowNs() + 100000000ull);
      continue;
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
}

}  // namespace rdmascope::probes
