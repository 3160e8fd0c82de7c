// libFuzzer harness: the agent's control-port protocol (probes/control_*), as
// bytes a peer sends over a connection. The first byte picks the side:
//  0: the responder's — LineConn splits the stream into lines (length cap,
//     deadline) and each line goes through ParseControlRequest;
//  1: the prober's — each line is parsed as a ud_info and an rc_connect reply;
//  2: the prober's authentication — Authenticate() reads the peer's hello and
//     auth replies from the stream.
// Findings: a crash or sanitizer report; a parse that succeeds but whose
// re-encoding does not parse back to the same encoding (what the responder
// accepted must be what the prober can say).
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "probes/control_auth.h"
#include "probes/control_protocol.h"
#include "probes/line_socket.h"
#include "probes/probe_clock.h"

namespace {

using namespace rdmascope::probes;
using rdmascope::Result;

template <typename T, typename Parse, typename Encode>
void RoundTrip(const Result<T>& parsed, Parse parse, Encode encode) {
  if (!parsed.ok()) return;
  const std::string once = encode(*parsed);
  auto again = parse(once);
  if (!again.ok() || encode(*again) != once) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t side = data[0] % 3;
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) __builtin_trap();
  // The whole input fits the socket buffer (inputs are capped by -max_len).
  if (size > 1 && ::write(fds[1], data + 1, size - 1) != static_cast<ssize_t>(size - 1)) __builtin_trap();
  ::shutdown(fds[1], SHUT_WR);
  LineConn conn{UniqueFd(fds[0])};
  const uint64_t deadline = NowNs() + 2'000'000'000ull;
  if (side == 2) {
    (void)Authenticate(conn, "fleet-secret", /*strict=*/true, deadline);
  } else {
    for (int lines = 0; lines < 64; ++lines) {
      auto line = conn.ReadLine(deadline);
      if (!line.ok()) break;
      if (side == 0) {
        auto req = ParseControlRequest(*line);
        if (req.ok() && req->op == ControlOp::kRcConnect)
          RoundTrip(Result<RcConnectRequest>(req->rc),
                    [](const std::string& l) -> Result<RcConnectRequest> {
                      auto r = ParseControlRequest(l);
                      if (!r.ok()) return r.status();
                      return r->rc;
                    },
                    EncodeRcConnectRequest);
      } else {
        RoundTrip(ParseUdInfoReply(*line), ParseUdInfoReply, EncodeUdInfoReply);
        RoundTrip(ParseRcConnectReply(*line), ParseRcConnectReply, EncodeRcConnectReply);
      }
    }
  }
  ::close(fds[1]);
  return 0;
}
