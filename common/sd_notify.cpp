#include "common/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace rdmascope {

Status SdNotifyTo(const std::string& socket_name, const std::string& state) {
  const std::string what = "sd_notify to " + socket_name + ": ";
  struct sockaddr_un addr;
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (socket_name.size() < 2 || (socket_name[0] != '/' && socket_name[0] != '@')) {
    return Status::Error(what + "not an absolute path or @abstract name");
  }
  if (socket_name.size() > sizeof(addr.sun_path) - 1) return Status::Error(what + "name too long");
  std::memcpy(addr.sun_path, socket_name.data(), socket_name.size());
  socklen_t len = socklen_t(offsetof(struct sockaddr_un, sun_path) + socket_name.size());
  if (socket_name[0] == '@') {
    addr.sun_path[0] = '\0';  // abstract: the length counts the bytes exactly, no terminator
  } else {
    len += 1;
  }
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Status::Error(what + "socket: " + std::strerror(errno));
  ssize_t n;
  do {
    n = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<struct sockaddr*>(&addr), len);
  } while (n < 0 && errno == EINTR);
  int err = errno;
  ::close(fd);
  if (n < 0) return Status::Error(what + "send: " + std::strerror(err));
  if (size_t(n) != state.size()) return Status::Error(what + "short send");
  return Status::Ok();
}

Status SdNotify(const std::string& state) {
  const char* name = std::getenv("NOTIFY_SOCKET");
  if (!name || !*name) return Status::Ok();
  return SdNotifyTo(name, state);
}

std::optional<std::chrono::microseconds> WatchdogPingInterval() {
  const char* usec = std::getenv("WATCHDOG_USEC");
  if (!usec || !*usec) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(usec, &end, 10);
  if (errno != 0 || *end != '\0' || v == 0) return std::nullopt;
  if (const char* pid = std::getenv("WATCHDOG_PID"); pid && *pid) {
    errno = 0;
    long long p = std::strtoll(pid, &end, 10);
    if (errno != 0 || *end != '\0' || p != static_cast<long long>(::getpid())) return std::nullopt;
  }
  return std::chrono::microseconds(v / 2);
}

}  // namespace rdmascope
