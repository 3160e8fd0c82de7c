// TCP with deadlines for the control port: connect, listen, and a line reader.
//
// Contract: no call blocks past its deadline (NowNs() clock), except that
// TcpConnect() resolves a host name with the system resolver and its own
// timeouts (numeric addresses need no lookup); lines longer than
// kMaxLineBytes are an error, not a buffer that grows. Fds are owned by
// UniqueFd and closed exactly once.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace rdmascope::probes {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  UniqueFd& operator=(UniqueFd&& o) noexcept { if (this != &o) { Reset(); fd_ = o.fd_; o.fd_ = -1; } return *this; }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset();

 private:
  int fd_ = -1;
};

// Connects to host:port (numeric address or name), failing after timeout_ms.
Result<UniqueFd> TcpConnect(const std::string& host, int port, int timeout_ms);

// Listens at `port` (SO_REUSEADDR) on `addr`, a numeric IPv4 or IPv6
// address; "" or "0.0.0.0" = every IPv4 address.
Result<UniqueFd> TcpListen(int port, const std::string& addr = "");

// The error message of ReadLine() for a line longer than kMaxLineBytes.
constexpr const char* kLineTooLong = "control line too long";

// The IPv4 addresses `host` (a name or a numeric address) resolves to, as
// text; empty when it resolves to none.
std::vector<std::string> NumericAddresses(const std::string& host);

// Buffered line I/O on a connected socket.
class LineConn {
 public:
  explicit LineConn(UniqueFd fd) : fd_(std::move(fd)) {}
  int fd() const { return fd_.get(); }

  // Next line without its '\n'. Errors: deadline passed, peer closed ("closed"),
  // line too long, *stop set.
  Result<std::string> ReadLine(uint64_t deadline_ns, const std::atomic<bool>* stop = nullptr);
  Status WriteLine(const std::string& line, uint64_t deadline_ns);
  // Discards whatever the peer sent and tells whether it has closed (or reset)
  // the connection; never blocks. For connections that expect no more input.
  bool DrainAndCheckClosed();
  // Ends our side (shutdown SHUT_WR) and discards the peer's input until it
  // closes or deadline_ns, so a last reply is not lost to a reset caused by
  // unread input. Memory stays bounded: input is read in small pieces.
  void FinishAndDiscard(uint64_t deadline_ns);

 private:
  UniqueFd fd_;
  std::string buf_;
};

}  // namespace rdmascope::probes
