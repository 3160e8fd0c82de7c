// Test helpers for the service manager's notify protocol (common/sd_notify.h):
// NotifyListener is a bound unix datagram socket standing in for the
// service manager; EnvGuard restores an environment variable on scope exit.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

namespace rdmascope::test_support {

// A bound unix datagram socket; name "@x" binds in the abstract namespace.
class NotifyListener {
 public:
  explicit NotifyListener(const std::string& name) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, name.data(), name.size());
    socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + name.size());
    if (name[0] == '@') {
      addr.sun_path[0] = '\0';
    } else {
      len += 1;
    }
    ok_ = fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0;
  }
  ~NotifyListener() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return ok_; }
  // The next datagram, or "" after 5 s.
  std::string Receive() {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 5000) != 1) return "";
    char buf[512];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, size_t(n)) : "";
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

class EnvGuard {
 public:
  explicit EnvGuard(const char* name) : name_(name) {
    const char* v = std::getenv(name);
    if (v) old_ = v;
    had_ = v != nullptr;
  }
  ~EnvGuard() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace rdmascope::test_support
