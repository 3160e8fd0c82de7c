#include "collector/http/http_front.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {
namespace {

constexpr int kListenBacklog = 1024;  // capped by net.core.somaxconn
constexpr auto kLinger = std::chrono::seconds(1);
constexpr size_t kLingerMaxBytes = 64 * 1024;
constexpr size_t kReadChunk = 16 * 1024;
constexpr int kFdsBesideConnections = 256;  // database, logs, threads' own

const char* ReasonPhrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

std::string AnswerText(int status, const std::string& error, const std::string& detail) {
  const std::string body = nlohmann::json{{"error", error}, {"detail", detail}}.dump();
  std::string text = "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) +
                     "\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\nConnection: close\r\n";
  if (status == 503) text += "Retry-After: 1\r\n";
  return text + "\r\n" + body;
}

// The address without the port; IPv4-mapped IPv6 addresses as IPv4.
std::string PeerIp(const sockaddr_storage& a, int* port) {
  char text[INET6_ADDRSTRLEN] = {};
  *port = 0;
  if (a.ss_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    *port = ntohs(in->sin_port);
  } else if (a.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    *port = ntohs(in6->sin6_port);
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
      ::inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], text, sizeof text);
    else
      ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
  }
  return text;
}

// Method and path of a complete head's request line.
std::pair<std::string_view, std::string_view> RequestTarget(std::string_view head) {
  std::string_view line = head.substr(0, head.find('\n'));
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return {line, {}};
  size_t sp2 = line.find(' ', sp1 + 1);
  std::string_view target = line.substr(sp1 + 1, sp2 == std::string_view::npos ? std::string_view::npos : sp2 - sp1 - 1);
  return {line.substr(0, sp1), target.substr(0, target.find('?'))};
}

// Best effort on a non-blocking socket: what does not fit now is dropped.
void WriteNow(const Connection& c, const std::string& text) {
  if (c.ssl) {
    SSL_write(c.ssl, text.data(), static_cast<int>(text.size()));
    return;
  }
  (void)!::send(c.fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

HttpFront::HttpFront(FrontOptions options, Serve serve, Overloaded on_overloaded, Log log)
    : options_(std::move(options)),
      serve_(std::move(serve)),
      on_overloaded_(std::move(on_overloaded)),
      log_(std::move(log)),
      slots_(options_.max_connections, options_.max_per_client),
      pool_(options_.workers, options_.max_queued) {
  stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

HttpFront::~HttpFront() {
  Stop();
  pool_.Shutdown();
  pending_.clear();
  for (int fd : {listen_fd_, epoll_fd_, stop_fd_, spare_fd_})
    if (fd >= 0) ::close(fd);
}

Result<int> HttpFront::Listen(const std::string& host, int port) {
  using R = Result<int>;
  // Each connection is a descriptor: make room for max_connections of them.
  rlimit lim{};
  const rlim_t want = options_.max_connections + kFdsBesideConnections;
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < want) {
    lim.rlim_cur = std::min(want, lim.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &lim);
    ::getrlimit(RLIMIT_NOFILE, &lim);
    if (lim.rlim_cur < want) {
      log_("warning: the open-file limit (" + std::to_string(lim.rlim_cur) + ") leaves room for fewer than " +
           std::to_string(options_.max_connections) + " HTTP connections; raise LimitNOFILE or lower " +
           "--http-max-connections");
    }
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found); rc != 0)
    return R::Error("cannot listen on " + host + ":" + service + ": " + ::gai_strerror(rc));
  std::string why = "no address";
  for (addrinfo* ai = found; ai && listen_fd_ < 0; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, kListenBacklog) == 0) {
      listen_fd_ = fd;
    } else {
      why = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0)
    return R::Error("cannot listen on " + host + ":" + service + " (" + why +
                    "; address in use, or not an address of this host?)");
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  int bound = 0;
  PeerIp(a, &bound);
  return bound;
}

void HttpFront::Stop() {
  stopping_ = true;
  if (stop_fd_ >= 0) {
    uint64_t one = 1;
    (void)!::write(stop_fd_, &one, sizeof one);
  }
}

void HttpFront::Watch(int fd, uint32_t events, bool add) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  ::epoll_ctl(epoll_fd_, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

bool HttpFront::Run() {
  if (listen_fd_ < 0 || stop_fd_ < 0) return false;
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) {
    log_(std::string("cannot serve HTTP: epoll_create1 failed: ") + std::strerror(errno));
    return false;
  }
  Watch(listen_fd_, EPOLLIN, true);
  Watch(stop_fd_, EPOLLIN, true);
  running_ = true;
  bool ok = true;
  epoll_event events[256];
  while (!stopping_) {
    int wait_ms = 1000;
    const auto now = Clock::now();
    for (const auto* q : {&head_deadlines_, &linger_deadlines_})
      if (!q->empty())
        wait_ms = std::clamp<int>(
            static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(q->front().at - now).count()) + 1,
            0, wait_ms);
    int n = ::epoll_wait(epoll_fd_, events, 256, wait_ms);
    if (n < 0 && errno != EINTR) {
      log_(std::string("HTTP front: epoll_wait failed: ") + std::strerror(errno));
      ok = false;
      break;
    }
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listen_fd_) AcceptAll();
      else if (fd != stop_fd_) OnEvent(fd, events[i].events);
    }
    Expire(Clock::now());
  }
  ::close(listen_fd_);
  listen_fd_ = -1;
  pending_.clear();  // closes what the front holds
  pool_.Shutdown();  // the workers finish what they have
  running_ = false;
  return ok;
}

std::shared_ptr<Connection> HttpFront::Adopt(int fd, const std::string& ip, int port) {
  // The slot is released when the last owner (front or worker) lets go.
  std::shared_ptr<Connection> conn(new Connection, [this](Connection* c) {
    const std::string who = c->peer_ip;
    delete c;
    slots_.Release(who);
  });
  conn->fd = fd;
  conn->peer_ip = ip;
  conn->peer_port = port;
  return conn;
}

void HttpFront::AcceptAll() {
  for (;;) {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && spare_fd_ >= 0) {
        // Out of descriptors: take the connection off the queue and close it
        // at once, rather than have epoll report it again and again.
        ::close(spare_fd_);
        int dropped = ::accept(listen_fd_, nullptr, nullptr);
        if (dropped >= 0) ::close(dropped);
        spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        counters_.refused_full++;
        Note("out of file descriptors: a connection was closed unanswered; raise LimitNOFILE");
      }
      return;
    }
    int port = 0;
    const std::string ip = PeerIp(a, &port);
    const auto got = slots_.Acquire(ip);
    if (got != ClientSlots::Outcome::kTaken) {
      const bool full = got == ClientSlots::Outcome::kFull;
      (full ? counters_.refused_full : counters_.refused_client)++;
      if (!options_.tls) {
        Connection c;
        c.fd = fd;
        WriteNow(c, AnswerText(503, "collector busy",
                               full ? "the collector holds its maximum of connections (--http-max-connections)"
                                    : "this address holds its maximum of connections (--http-max-per-client)"));
      } else {
        ::close(fd);
      }
      Note(full ? "connection refused: --http-max-connections reached"
                : "connection refused: --http-max-per-client reached by " + ip);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Pending p{Adopt(fd, ip, port), HeadScanner(options_.head), Phase::kHead, next_id_++};
    if (options_.tls) {
      p.conn->ssl = options_.tls->NewSession(fd);
      if (!p.conn->ssl) continue;  // p's connection closes here
      p.phase = Phase::kHandshake;
    }
    head_deadlines_.push_back({Clock::now() + options_.head_timeout, fd, p.id});
    pending_.emplace(fd, std::move(p));
    Watch(fd, EPOLLIN | EPOLLRDHUP, true);
  }
}

void HttpFront::OnEvent(int fd, uint32_t events) {
  auto it = pending_.find(fd);
  if (it == pending_.end()) return;
  Pending& p = it->second;
  if (p.phase == Phase::kLinger) {
    char scratch[4096];
    for (;;) {
      ssize_t n = ::recv(fd, scratch, sizeof scratch, 0);
      if (n > 0 && (p.discarded += static_cast<size_t>(n)) <= kLingerMaxBytes) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n < 0 && errno == EINTR) continue;
      return Close(fd);  // end of stream, error, or enough thrown away
    }
  }
  if (p.phase == Phase::kHandshake) {
    int rc = SSL_do_handshake(p.conn->ssl);
    if (rc != 1) {
      int err = SSL_get_error(p.conn->ssl, rc);
      if (err == SSL_ERROR_WANT_READ) return Watch(fd, EPOLLIN | EPOLLRDHUP, false);
      if (err == SSL_ERROR_WANT_WRITE) return Watch(fd, EPOLLOUT, false);
      return Close(fd);  // not TLS, or a failed handshake
    }
    p.phase = Phase::kHead;
    Watch(fd, EPOLLIN | EPOLLRDHUP, false);
  }
  (void)events;
  ReadHead(fd, p);
}

void HttpFront::ReadHead(int fd, Pending& p) {
  Connection& c = *p.conn;
  for (;;) {
    // Read no further than one byte past the largest head: enough to refuse it.
    const size_t room = options_.head.max_head_bytes + 1 - std::min(c.buffered.size(), options_.head.max_head_bytes);
    const size_t want = std::min(room, kReadChunk);
    const size_t old = c.buffered.size();
    c.buffered.resize(old + want);
    ssize_t n;
    if (c.ssl) {
      int r = SSL_read(c.ssl, c.buffered.data() + old, static_cast<int>(want));
      n = r;
      if (r <= 0) {
        c.buffered.resize(old);
        int err = SSL_get_error(c.ssl, r);
        if (err == SSL_ERROR_WANT_READ) return Watch(fd, EPOLLIN | EPOLLRDHUP, false);  // perhaps after WANT_WRITE
        if (err == SSL_ERROR_WANT_WRITE) return Watch(fd, EPOLLOUT, false);
        return Close(fd);
      }
    } else {
      n = ::recv(fd, c.buffered.data() + old, want, 0);
      if (n <= 0) {
        c.buffered.resize(old);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        return Close(fd);  // the client went away before its head was complete
      }
    }
    c.buffered.resize(old + static_cast<size_t>(n));
    const auto state = p.scan.Scan(c.buffered);
    if (state == HeadScanner::State::kComplete) return HandOff(fd, p);
    if (state != HeadScanner::State::kNeedMore) {
      counters_.head_refused++;
      Note(std::string("request refused: ") + HeadScanner::Reason(state) + " from " + c.peer_ip);
      return Answer(fd, p, HeadScanner::Status(state), HeadScanner::Reason(state),
                    "the request line is limited to " + std::to_string(options_.head.max_request_line) +
                        " bytes, a header line to " + std::to_string(options_.head.max_header_line) +
                        ", the head to " + std::to_string(options_.head.max_head_bytes) + " bytes and " +
                        std::to_string(options_.head.max_header_lines) + " header lines");
    }
  }
}

void HttpFront::HandOff(int fd, Pending& p) {
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);  // from now on the worker alone reads it
  std::shared_ptr<Connection> conn = p.conn;
  const bool taken = pool_.TrySubmit([this, conn] { serve_(*conn); });
  if (taken) {
    p.conn.reset();
    pending_.erase(fd);
    return;
  }
  counters_.overloaded++;
  const std::string head = conn->buffered.substr(0, p.scan.head_end());
  const auto [method, path] = RequestTarget(head);
  if (on_overloaded_) on_overloaded_(method, path);
  Note("request answered 503: every HTTP worker is busy and the queue is full");
  Watch(fd, EPOLLIN | EPOLLRDHUP, true);
  Answer(fd, p, 503, "collector overloaded",
         std::to_string(options_.max_queued) + " requests already wait for a worker; retry later");
}

void HttpFront::Answer(int fd, Pending& p, int status, const std::string& error, const std::string& detail) {
  WriteNow(*p.conn, AnswerText(status, error, detail));
  if (p.conn->ssl) SSL_shutdown(p.conn->ssl);
  ::shutdown(fd, SHUT_WR);
  p.phase = Phase::kLinger;
  p.conn->buffered.clear();
  linger_deadlines_.push_back({Clock::now() + kLinger, fd, p.id});
  Watch(fd, EPOLLIN | EPOLLRDHUP, false);
}

void HttpFront::Close(int fd) {
  auto it = pending_.find(fd);
  if (it == pending_.end()) return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  pending_.erase(it);  // the connection closes when its last owner lets go
}

void HttpFront::Expire(Clock::time_point now) {
  while (!head_deadlines_.empty() && head_deadlines_.front().at <= now) {
    const Deadline d = head_deadlines_.front();
    head_deadlines_.pop_front();
    auto it = pending_.find(d.fd);
    if (it == pending_.end() || it->second.id != d.id || it->second.phase == Phase::kLinger) continue;
    counters_.head_timeouts++;
    Note("request timed out: no complete head within --http-head-timeout-ms from " + it->second.conn->peer_ip);
    if (it->second.phase == Phase::kHandshake) {
      Close(d.fd);
      continue;
    }
    Answer(d.fd, it->second, 408, "request timeout",
           "the request line and headers must arrive within " + std::to_string(options_.head_timeout.count()) +
               " ms of connecting");
  }
  while (!linger_deadlines_.empty() && linger_deadlines_.front().at <= now) {
    const Deadline d = linger_deadlines_.front();
    linger_deadlines_.pop_front();
    auto it = pending_.find(d.fd);
    if (it != pending_.end() && it->second.id == d.id) Close(d.fd);
  }
}

void HttpFront::Note(const std::string& what) {
  // One line per kind of refusal (its text up to " from ") every 10 s at most.
  const std::string kind = what.substr(0, what.find(" from "));
  const auto now = Clock::now();
  auto it = noted_.find(kind);
  if (it != noted_.end() && now - it->second < std::chrono::seconds(10)) return;
  if (noted_.size() > 64) noted_.clear();
  noted_[kind] = now;
  log_(what + " (so far: " + std::to_string(counters_.refused_full.load()) + " refused at the connection cap, " +
       std::to_string(counters_.refused_client.load()) + " at the per-client cap, " +
       std::to_string(counters_.head_timeouts.load()) + " head time-outs, " +
       std::to_string(counters_.head_refused.load()) + " heads refused, " + std::to_string(counters_.overloaded.load()) +
       " overloaded)");
}

}  // namespace rdmascope::collector
