// Fleet-secret mutual authentication of the control port (protocol v2), so a
// stranger can neither open RC sessions nor learn QPNs, a prober never talks
// to an impostor agent, and neither side can be used to answer the other's
// challenge.
//
//   prober -> {"op":"hello","v":2,"nonce":Np}
//   agent  -> {"ok":true,"v":2,"nonce":Na}    (an agent without a secret: {"ok":true,"v":2})
//   prober -> {"op":"auth","mac":HMAC(S, "rdmascope control v2 prober\n" Np "\n" Na)}
//   agent  -> {"ok":true,"mac":HMAC(S, "rdmascope control v2 agent\n" Np "\n" Na)}
//   session key K = HMAC(S, "rdmascope control v2 session\n" Np "\n" Na)
//   every later line, each way: an envelope MACed with K (probes/control_seal.h)
//
// S is the fleet secret, HMAC is HMAC-SHA256 in lowercase hex, Np and Na are
// 16 CSPRNG bytes as 32 lowercase hex digits, new per connection and checked
// for that form by the side that receives them.
// Why this holds: each MAC is over both nonces, so each side knows its own
// challenge is answered freshly (a recorded exchange replays nowhere). The
// labels differ per role, so an agent's proof is never a valid prober proof
// and no side can be made to compute the other's answer. The agent proves
// itself only after the prober did, so strangers get no MAC at all. A relay
// that forwards a whole handshake between a prober and an agent gains
// nothing: it lacks K, so it can neither send a request nor alter a reply.
//
// Contract, agent side (AgentAuth): with a secret and strict (the default
// when a secret is set) it answers nothing but hello/auth until a correct
// auth; any other request, a hello without a v2 nonce (a v1 prober), a second
// hello, auth before hello or a wrong MAC gets {"ok":false,"error":...} and
// the connection is closed. Lenient (for a fleet being upgraded or being
// given a secret) serves peers that do not authenticate too, answering a v1
// hello with no nonce; a wrong MAC still closes. Without a secret it answers
// hello with no nonce and serves everyone.
// Contract, prober side (Authenticate): strict refuses an agent whose hello
// offers no nonce (no secret: a downgrade) or only a v1 nonce, and one whose
// proof is wrong or missing. Lenient continues unauthenticated when the agent
// offers nothing, and answers a v1 agent's nonce with the v1 MAC
// HMAC(S, Na) — the one-way scheme of protocol v1, only for the upgrade.
// Mixed versions: v1 and v2 interoperate without a secret. With one, strict
// ends need the other end on v2 (upgrade the whole fleet, or run it lenient
// until every node runs v2).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "probes/control_protocol.h"
#include "probes/control_seal.h"
#include "probes/line_socket.h"

namespace rdmascope::probes {

constexpr int kControlProtocolVersion = 2;

// 16 random bytes from the system's CSPRNG, as 32 lowercase hex digits.
Result<std::string> NewNonceHex();
// Whether s has the form of a nonce: 32 lowercase hex digits.
bool IsNonceHex(const std::string& s);
// HMAC-SHA256(key, data) as 64 lowercase hex digits.
std::string HmacSha256Hex(const std::string& key, const std::string& data);
// Constant-time equality of two MACs in hex.
bool MacHexEqual(const std::string& a, const std::string& b);
// The handshake's values (see above) for secret S and nonces Np, Na.
std::string ProberProof(const std::string& secret, const std::string& np, const std::string& na);
std::string AgentProof(const std::string& secret, const std::string& np, const std::string& na);
std::string SessionKey(const std::string& secret, const std::string& np, const std::string& na);
// The secret in `path`: its content without trailing whitespace; error when
// unreadable, empty or longer than 4096 bytes.
Result<std::string> ReadSecretFile(const std::string& path);

// Prober side: hello, auth, the agent's proof. Returns the session's seal
// (unkeyed when lenient went on without authentication or with v1). Errors
// quote the agent's refusal or say what the agent failed to offer.
Result<ControlSeal> Authenticate(LineConn& conn, const std::string& secret, bool strict, uint64_t deadline_ns);

// Agent side, one per connection.
class AgentAuth {
 public:
  AgentAuth(const std::string& secret, bool strict) : secret_(secret), strict_(strict) {}
  // The reply line to hello or auth; an error is to be sent as the error
  // reply, and the connection closed.
  Result<std::string> Handle(const ControlRequest& req);
  // Whether requests other than hello/auth may be answered now.
  bool may_serve() const { return secret_.empty() || authenticated_ || !strict_; }
  // Requests and replies after the handshake go through this.
  ControlSeal& seal() { return seal_; }

 private:
  std::string secret_;
  bool strict_;
  bool said_hello_ = false;
  bool authenticated_ = false;
  std::string prober_nonce_, agent_nonce_;
  ControlSeal seal_;
};

}  // namespace rdmascope::probes
