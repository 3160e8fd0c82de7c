// Fleet-secret authentication of the control port: HMAC-SHA256 over a nonce
// the server chose for this connection, so a stranger can neither open RC
// sessions nor learn QPNs, and a recorded exchange cannot be replayed.
//
//   {"op":"hello"}            -> {"ok":true,"nonce":"<32 hex digits>"}
//   {"op":"auth","mac":"<hex HMAC-SHA256(secret, nonce)>"} -> {"ok":true}
//
// Contract: with a secret, the responder answers nothing but hello/auth until
// a correct auth; anything else, or a wrong MAC, gets {"ok":false,"error":...}
// and the connection is closed. MACs are compared in constant time. Without a
// secret the responder answers hello and auth with ok, so probers that hold a
// secret still work against it (it is then not enforced, only offered).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "probes/line_socket.h"

namespace rdmascope::probes {

// 16 random bytes from the system's CSPRNG, as 32 lowercase hex digits.
Result<std::string> NewNonceHex();
// HMAC-SHA256(secret, nonce_hex) as 64 lowercase hex digits.
std::string AuthMacHex(const std::string& secret, const std::string& nonce_hex);
// Whether mac_hex is the MAC of nonce_hex under secret (constant time).
bool MacMatches(const std::string& secret, const std::string& nonce_hex, const std::string& mac_hex);
// The secret in `path`: its content without trailing whitespace; error when
// unreadable, empty or longer than 4096 bytes.
Result<std::string> ReadSecretFile(const std::string& path);
// Client side: hello, then auth. The error quotes the server's refusal.
Status Authenticate(LineConn& conn, const std::string& secret, uint64_t deadline_ns);

}  // namespace rdmascope::probes
