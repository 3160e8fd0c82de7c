#include "probes/line_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "probes/control_protocol.h"
#include "probes/probe_clock.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

void UniqueFd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

namespace {

int MsUntil(uint64_t deadline_ns, const std::atomic<bool>* stop) {
  uint64_t now = NowNs();
  if (now >= deadline_ns) return 0;
  uint64_t ms = (deadline_ns - now + 999999) / 1000000;
  if (stop) ms = std::min<uint64_t>(ms, 100);
  return int(std::min<uint64_t>(ms, 60000));
}

}  // namespace

Result<UniqueFd> TcpConnect(const std::string& host, int port, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int gai = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (gai != 0) return Status::Error("getaddrinfo(" + host + "): " + gai_strerror(gai));
  Status last = Status::Error("getaddrinfo(" + host + "): no address");
  const uint64_t deadline = NowNs() + uint64_t(timeout_ms) * 1000000;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid()) { last = ErrnoStatus("socket", errno); continue; }
    int rc = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno != EINPROGRESS) { last = ErrnoStatus("connect", errno, host + ":" + std::to_string(port)); continue; }
    if (rc != 0) {
      pollfd p{fd.get(), POLLOUT, 0};
      int pr = 0;
      do { pr = ::poll(&p, 1, MsUntil(deadline, nullptr)); } while (pr < 0 && errno == EINTR);
      if (pr == 0) { last = ErrnoStatus("connect", ETIMEDOUT, host + ":" + std::to_string(port)); continue; }
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      if (pr < 0) err = errno;
      if (err != 0) { last = ErrnoStatus("connect", err, host + ":" + std::to_string(port)); continue; }
    }
    int one = 1;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    freeaddrinfo(res);
    return fd;
  }
  freeaddrinfo(res);
  return last;
}

Result<UniqueFd> TcpListen(int port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket", errno);
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = htons(uint16_t(port));
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    return ErrnoStatus("bind", errno, "TCP port " + std::to_string(port));
  }
  if (::listen(fd.get(), 64) != 0) return ErrnoStatus("listen", errno);
  return fd;
}

Result<std::string> LineConn::ReadLine(uint64_t deadline_ns, const std::atomic<bool>* stop) {
  for (;;) {
    auto nl = buf_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      if (line.size() > kMaxLineBytes) return Status::Error("control line too long");
      return line;
    }
    if (buf_.size() > kMaxLineBytes) return Status::Error("control line too long");
    if (stop && stop->load()) return Status::Error("stopped");
    if (NowNs() >= deadline_ns) return Status::Error("control read timed out");
    pollfd p{fd_.get(), POLLIN, 0};
    int pr = ::poll(&p, 1, MsUntil(deadline_ns, stop));
    if (pr < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("poll", errno);
    }
    if (pr == 0) continue;
    char tmp[1024];
    ssize_t n = ::recv(fd_.get(), tmp, sizeof tmp, MSG_DONTWAIT);
    if (n == 0) return Status::Error("closed");
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return ErrnoStatus("recv", errno);
    }
    buf_.append(tmp, size_t(n));
  }
}

Status LineConn::WriteLine(const std::string& line, uint64_t deadline_ns) {
  std::string out = line + "\n";
  size_t off = 0;
  while (off < out.size()) {
    ssize_t n = ::send(fd_.get(), out.data() + off, out.size() - off, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) { off += size_t(n); continue; }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return ErrnoStatus("send", errno);
    if (NowNs() >= deadline_ns) return Status::Error("control write timed out");
    pollfd p{fd_.get(), POLLOUT, 0};
    ::poll(&p, 1, MsUntil(deadline_ns, nullptr));
  }
  return Status::Ok();
}

bool LineConn::DrainAndCheckClosed() {
  for (int i = 0; i < 64; ++i) {  // bounded: at most 64 KiB discarded per call
    char tmp[1024];
    ssize_t n = ::recv(fd_.get(), tmp, sizeof tmp, MSG_DONTWAIT);
    if (n == 0) return true;
    if (n < 0) return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
  }
  return false;
}

}  // namespace rdmascope::probes
