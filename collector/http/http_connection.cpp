#include "collector/http/http_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rdmascope::collector {

Connection::~Connection() {
  if (ssl) {
    SSL_shutdown(ssl);  // one close_notify, not waiting for the peer's
    SSL_free(ssl);
  }
  if (fd >= 0) {
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
  }
}

ConnectionStream::ConnectionStream(Connection& conn, std::chrono::milliseconds timeout,
                                   std::chrono::steady_clock::time_point deadline)
    : conn_(conn), timeout_(timeout), deadline_(deadline) {}

bool ConnectionStream::Wait(short events, bool reading) const {
  auto wait = timeout_;
  if (reading) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    wait = std::min(wait, left);
  }
  pollfd p{conn_.fd, events, 0};
  for (;;) {
    int n = ::poll(&p, 1, static_cast<int>(wait.count()));
    if (n < 0 && errno == EINTR) continue;
    return n > 0 && (p.revents & (events | POLLHUP)) != 0 && (p.revents & POLLNVAL) == 0;
  }
}

bool ConnectionStream::is_readable() const {
  if (offset_ < conn_.buffered.size()) return true;
  if (conn_.ssl && SSL_pending(conn_.ssl) > 0) return true;
  return Wait(POLLIN, true);
}

bool ConnectionStream::is_writable() const { return Wait(POLLOUT, false); }

ssize_t ConnectionStream::read(char* ptr, size_t size) {
  if (offset_ < conn_.buffered.size()) {
    size_t n = std::min(size, conn_.buffered.size() - offset_);
    std::memcpy(ptr, conn_.buffered.data() + offset_, n);
    offset_ += n;
    if (offset_ == conn_.buffered.size()) {
      conn_.buffered.clear();
      conn_.buffered.shrink_to_fit();
      offset_ = 0;
    }
    return static_cast<ssize_t>(n);
  }
  if (size == 0) return 0;
  const int want = static_cast<int>(std::min<size_t>(size, 1 << 30));
  for (;;) {
    if (std::chrono::steady_clock::now() >= deadline_) return -1;
    if (conn_.ssl) {
      int n = SSL_read(conn_.ssl, ptr, want);
      if (n > 0) return n;
      int err = SSL_get_error(conn_.ssl, n);
      if (err == SSL_ERROR_ZERO_RETURN) return 0;
      if (err == SSL_ERROR_WANT_READ) {
        if (!Wait(POLLIN, true)) return -1;
        continue;
      }
      if (err == SSL_ERROR_WANT_WRITE) {
        if (!Wait(POLLOUT, false)) return -1;
        continue;
      }
      return -1;
    }
    ssize_t n = ::recv(conn_.fd, ptr, static_cast<size_t>(want), 0);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    if (!Wait(POLLIN, true)) return -1;
  }
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
  if (size == 0) return 0;
  const int want = static_cast<int>(std::min<size_t>(size, 1 << 30));
  for (;;) {
    if (conn_.ssl) {
      int n = SSL_write(conn_.ssl, ptr, want);
      if (n > 0) return n;
      int err = SSL_get_error(conn_.ssl, n);
      if (err == SSL_ERROR_WANT_WRITE) {
        if (!Wait(POLLOUT, false)) return -1;
        continue;
      }
      if (err == SSL_ERROR_WANT_READ) {
        if (!Wait(POLLIN, false)) return -1;
        continue;
      }
      return -1;
    }
    ssize_t n = ::send(conn_.fd, ptr, static_cast<size_t>(want), MSG_NOSIGNAL);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    if (!Wait(POLLOUT, false)) return -1;
  }
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = conn_.peer_ip;
  port = conn_.peer_port;
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  ip.clear();
  port = 0;
  if (::getsockname(conn_.fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    port = ntohs(in6->sin6_port);
  }
  ip = text;
}

}  // namespace rdmascope::collector
