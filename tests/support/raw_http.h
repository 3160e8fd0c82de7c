// A raw HTTP exchange on loopback, for requests a well-behaved client cannot
// send (lying headers, bodies without length, endless filler).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace rdmascope::testsupport {

// Sends `head` (request line, headers, blank line, any body), then up to
// `filler_bytes` of 'x' while the server still reads, and returns the status
// line of the answer ("" when none came within recv_timeout_s).
inline std::string RawHttpRequest(int port, const std::string& head, size_t filler_bytes, int recv_timeout_s = 10) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{recv_timeout_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  timeval wtv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wtv, sizeof wtv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  (void)!::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  const std::string chunk(256 * 1024, 'x');
  for (size_t sent = 0; sent < filler_bytes;) {
    ssize_t n = ::send(fd, chunk.data(), std::min(chunk.size(), filler_bytes - sent), MSG_NOSIGNAL);
    if (n <= 0) break;  // the server stopped reading or closed: it answered already
    sent += static_cast<size_t>(n);
  }
  std::string got;
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
    if (got.find("\r\n") != std::string::npos) break;
  }
  ::close(fd);
  return got.substr(0, got.find("\r\n"));
}

}  // namespace rdmascope::testsupport
