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

std::vector<std::string> NumericAddresses(const std::string& host) {
  std::vector<std::string> out;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (host.empty() || getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0) return out;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    char text[INET_ADDRSTRLEN] = {};
    auto* a = reinterpret_cast<sockaddr_in*>(ai->ai_addr);
    if (inet_ntop(AF_INET, &a->sin_addr, text, sizeof text) == nullptr) continue;
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
  }
  freeaddrinfo(res);
  return out;
}

Result<UniqueFd> TcpListen(int port, const std::string& addr) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto* a4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* a6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (addr.empty() || inet_pton(AF_INET, addr.c_str(), &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    if (addr.empty()) a4->sin_addr.s_addr = htonl(INADDR_ANY);
    a4->sin_port = htons(uint16_t(port));
    len = sizeof *a4;
  } else if (inet_pton(AF_INET6, addr.c_str(), &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(uint16_t(port));
    len = sizeof *a6;
  } else {
    return Status::Error("control bind address '" + addr + "' is not a numeric IPv4 or IPv6 address");
  }
  UniqueFd fd(::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket", errno);
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ss.ss_family == AF_INET6) setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    return ErrnoStatus("bind", errno, "TCP port " + std::to_string(port) + " on " + (addr.empty() ? "0.0.0.0" : addr));
  }
  // A fleet's probers arrive together at each round: a deep backlog lets
  // them wait for a free handler instead of having their SYNs dropped.
  if (::listen(fd.get(), SOMAXCONN) != 0) return ErrnoStatus("listen", errno);
  return fd;
}

Result<std::string> LineConn::ReadLine(uint64_t deadline_ns, const std::atomic<bool>* stop) {
  for (;;) {
    auto nl = buf_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      if (line.size() > kMaxLineBytes) return Status::Error(kLineTooLong);
      return line;
    }
    if (buf_.size() > kMaxLineBytes) return Status::Error(kLineTooLong);
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

namespace rdmascope::probes {

void LineConn::FinishAndDiscard(uint64_t deadline_ns) {
  ::shutdown(fd_.get(), SHUT_WR);
  buf_.clear();
  while (!DrainAndCheckClosed()) {
    const int ms = MsUntil(deadline_ns, nullptr);
    if (ms <= 0) return;
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, std::min(ms, 100)) < 0 && errno != EINTR) return;
  }
}

}  // namespace rdmascope::probes
