// lab_control_hold: one hostile client against an agent's control port, for
// the lab's control-port test (tests/lab/tests/control_port.sh).
//
// Contract: keeps --count TCP connections from source address --from to
// --host:--port open for --seconds, sending nothing, and opens a new one
// whenever the agent closes one (what a client bent on holding the port
// does). Then prints one line of figures: connections opened, refused at once
// (a JSON error line before the close), closed by the agent after sitting
// idle, the most held at one moment, and the longest an idle one was kept.
// With --ready-file it creates that file once the agent both holds and
// refuses its connections (the port is under siege), so the caller can probe
// then. Exits 0 when it ran; the caller judges the figures.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "probes/probe_clock.h"

namespace p = rdmascope::probes;

namespace {

struct Conn {
  int fd = -1;
  uint64_t opened_ns = 0;
  bool got_line = false;
};

// A non-blocking connect from `from` to host:port; -1 on failure.
int Open(const std::string& from, const std::string& host, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (::inet_pton(AF_INET, from.c_str(), &a.sin_addr) != 1 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a)) {
    ::close(fd);
    return -1;
  }
  a.sin_port = htons(uint16_t(port));
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1 ||
      (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  std::string host, from, ready_file;
  int port = 18610, count = 64, seconds = 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--host") host = v;
    else if (k == "--from") from = v;
    else if (k == "--port") port = std::atoi(v.c_str());
    else if (k == "--count") count = std::atoi(v.c_str());
    else if (k == "--seconds") seconds = std::atoi(v.c_str());
    else if (k == "--ready-file") ready_file = v;
  }
  if (host.empty() || from.empty() || count <= 0) {
    std::fprintf(stderr, "usage: lab_control_hold --host IP --from SRC_IP [--port P] [--count N] [--seconds S]\n"
                         "                        [--ready-file PATH]\n");
    return 2;
  }
  std::vector<Conn> conns(static_cast<size_t>(count));
  uint64_t opened = 0, refused = 0, idle_closed = 0, open_failed = 0, longest_idle_ns = 0;
  int most_held = 0;
  const uint64_t end = p::NowNs() + uint64_t(seconds) * 1000000000ull;
  while (p::NowNs() < end) {
    for (auto& c : conns) {
      if (c.fd >= 0) continue;
      c.fd = Open(from, host, port);
      c.opened_ns = p::NowNs();
      c.got_line = false;
      if (c.fd < 0) ++open_failed;
      else ++opened;
    }
    std::vector<pollfd> ps;
    for (auto& c : conns) ps.push_back({c.fd, POLLIN, 0});
    ::poll(ps.data(), nfds_t(ps.size()), 100);
    int held = 0;
    for (size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      if (c.fd < 0) continue;
      if (ps[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[512];
        ssize_t n = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
          c.got_line = true;  // the refusal; its close follows
          continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        const uint64_t age = p::NowNs() - c.opened_ns;
        if (c.got_line) {
          ++refused;
        } else {
          ++idle_closed;
          longest_idle_ns = std::max(longest_idle_ns, age);
        }
        ::close(c.fd);
        c.fd = -1;
        continue;
      }
      if (!c.got_line && p::NowNs() - c.opened_ns > 500000000ull) ++held;
    }
    most_held = std::max(most_held, held);
    if (!ready_file.empty() && held > 0 && refused > 0) {
      if (FILE* f = std::fopen(ready_file.c_str(), "w")) std::fclose(f);
      ready_file.clear();
    }
  }
  for (auto& c : conns) {
    if (c.fd >= 0) ::close(c.fd);
  }
  std::printf("opened %llu, refused at once %llu, closed idle %llu, most held at once %d, "
              "longest idle kept %.1f s, failed to open %llu\n",
              (unsigned long long)opened, (unsigned long long)refused, (unsigned long long)idle_closed, most_held,
              double(longest_idle_ns) / 1e9, (unsigned long long)open_failed);
  return 0;
}
