// One control connection on the agent's side: the handshake, the sealed
// requests, ud_info in pages, rc_connect, and the limits that keep the
// control port available. Apart from verbs: what it serves comes from
// ControlServices (the responder's served ports; a fixture in tests).
//
// Contract: a connection must authenticate (a secret in strict mode) or else
// send a first valid request within kReadyNs, then each next request within
// kIdleNs; it lives at most kLifetimeNs and kMaxRequests requests, where a
// ud_info continuation (a `from` equal to the `next` of the page just
// served) does not count: those are bounded by the endpoint list, whose pages
// each advance. The first ud_info of a connection (no `from`, or any `from`
// other than that `next`) takes a new snapshot of the endpoints; its
// continuations are served from that snapshot, so a prober's pages agree
// with each other. Each page is as long as fits one line once sealed
// (EncodeUdInfoPage, probes/control_protocol.h). A line that is too long,
// malformed or unsealed after authentication is answered with the error and
// closes the connection; so does rc_connect's reply (the RC session outlives
// the connection). ud_info() returning null (the responder is stopping)
// closes the connection without a reply.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "probes/control_protocol.h"
#include "probes/line_socket.h"

namespace rdmascope::probes {

struct ControlServices {
  // The endpoints served now; null while stopping.
  std::function<std::shared_ptr<const UdInfoReply>()> ud_info;
  // The rc_connect reply line, or the error to answer.
  std::function<Result<std::string>(const RcConnectRequest&)> rc_connect;
};

struct ControlSessionOptions {
  std::string secret;  // fleet secret (probes/control_auth.h); "" = none
  bool strict = true;  // with a secret: serve only peers that authenticated
};

// Control connections are setups: a handshake and a few requests.
constexpr uint64_t kControlReadyNs = 5000000000ull;      // to authenticate, or to send a first valid request
constexpr uint64_t kControlIdleNs = 5000000000ull;       // between requests afterwards
constexpr uint64_t kControlLifetimeNs = 15000000000ull;  // a connection's whole life
constexpr int kControlMaxRequests = 8;                   // ud_info continuations not counted
constexpr uint64_t kControlWriteNs = 2000000000ull;

// Serves `conn` until it ends (by the rules above) or `stop` is set.
void ServeControlConnection(LineConn& conn, const std::atomic<bool>& stop, const ControlSessionOptions& options,
                            const ControlServices& services);

}  // namespace rdmascope::probes
