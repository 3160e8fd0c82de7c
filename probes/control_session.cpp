#include "probes/control_session.h"

#include <algorithm>

#include "probes/control_auth.h"
#include "probes/control_seal.h"
#include "probes/probe_clock.h"

namespace rdmascope::probes {

void ServeControlConnection(LineConn& conn, const std::atomic<bool>& stop, const ControlSessionOptions& options,
                            const ControlServices& services) {
  const uint64_t accepted = NowNs();
  const uint64_t end = accepted + kControlLifetimeNs;  // the connection's whole life
  const bool needs_auth = !options.secret.empty() && options.strict;
  AgentAuth auth(options.secret, options.strict);
  // Until authenticated (or, with nothing to prove, until a first valid
  // request) the peer has kControlReadyNs; after that kControlIdleNs between requests.
  uint64_t deadline = accepted + kControlReadyNs;
  auto refuse = [&](const std::string& why) {
    const std::string line = EncodeErrorReply(why);
    conn.WriteLine(auth.seal().Seal(line), NowNs() + kControlWriteNs);  // sealed once authenticated
    conn.FinishAndDiscard(NowNs() + kControlWriteNs);
  };
  // ud_info's snapshot for this connection, and where its next page starts (0: none follows).
  std::shared_ptr<const UdInfoReply> endpoints;
  size_t next_from = 0;
  for (int requests = 0; requests < kControlMaxRequests && !stop.load();) {
    auto line = conn.ReadLine(std::min(deadline, end), &stop);
    if (!line.ok()) {  // closed, timed out, too long or stopping
      // A line past the limit is refused in words before the close; the
      // reader never buffered more than the limit plus one read of it.
      if (line.status().message() == kLineTooLong) {
        refuse(std::string(kLineTooLong) + " (the limit is " + std::to_string(kMaxLineBytes) +
               " bytes): connection closed");
      }
      return;
    }
    // After a v2 authentication every line is a sealed envelope.
    auto body = auth.seal().Open(*line);
    if (!body.ok()) return refuse(body.status().message() + ": connection closed");
    auto req = ParseControlRequest(*body);
    if (!req.ok()) return refuse(req.status().message() + ": connection closed");
    const bool continuation =
        req->op == ControlOp::kUdInfo && endpoints && next_from != 0 && req->ud_from == next_from;
    if (!continuation) ++requests;
    if (req->op == ControlOp::kHello || req->op == ControlOp::kAuth) {
      auto reply = auth.Handle(*req);
      if (!reply.ok()) return refuse(reply.status().message());
      if (!conn.WriteLine(*reply, NowNs() + kControlWriteNs).ok()) return;
      if (auth.may_serve() && needs_auth) deadline = NowNs() + kControlIdleNs;  // authenticated
      continue;
    }
    if (!auth.may_serve()) {
      return refuse("authentication required: this agent has a control secret (send hello, then auth)");
    }
    deadline = NowNs() + kControlIdleNs;
    if (req->op == ControlOp::kUdInfo) {
      if (!continuation) endpoints = services.ud_info();
      if (!endpoints) return;  // stopping
      ControlSeal& seal = auth.seal();
      auto page = EncodeUdInfoPage(*endpoints, req->ud_from,
                                   [&seal](const std::string& l) { return seal.SealedBytes(l); });
      if (!page.ok()) return refuse(page.status().message());
      next_from = page->next.value_or(0);
      if (!WriteSealed(conn, seal, page->line, NowNs() + kControlWriteNs).ok()) return;
      continue;
    }
    // The reply ends the connection: the session outlives it (rc_responder.h).
    auto reply = services.rc_connect(req->rc);
    WriteSealed(conn, auth.seal(), reply.ok() ? *reply : EncodeErrorReply(reply.status().message()),
                NowNs() + kControlWriteNs);
    if (reply.ok()) return;  // the prober sends nothing more: closing loses no reply
  }
}

}  // namespace rdmascope::probes
