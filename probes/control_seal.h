// The authenticated control session (probes/control_auth.h): after a mutual
// authentication every line, each way, travels in an envelope MACed with the
// session key, so the requests that follow are bound to the authenticated
// peer and to their order.
//
//   {"seq":N,"body":"<the request or reply line>","mac":HMAC-SHA256(K, DIR "\n" N "\n" body)}
//
// Contract: K is the session key both sides derived from the secret and both
// nonces; DIR is "prober" for lines the prober sends and "agent" for lines the
// agent sends (a line cannot be reflected back); N counts 1, 2, ... per
// direction and must be exactly the next one (no replay, reorder or drop goes
// unnoticed). Open() refuses anything else with a message saying what was
// wrong; it never throws. An unkeyed seal (no secret, or an agent in lenient
// mode serving a peer that did not authenticate) passes lines through as they
// are. MACs are compared in constant time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "probes/line_socket.h"

namespace rdmascope::probes {

class ControlSeal {
 public:
  enum class Side { kProber, kAgent };
  ControlSeal() = default;  // unkeyed: lines pass through
  ControlSeal(std::string key, Side side) : key_(std::move(key)), side_(side) {}
  bool keyed() const { return !key_.empty(); }
  // The line to send for `body` (the body itself when unkeyed).
  std::string Seal(const std::string& body);
  // The length of the line the next Seal(body) returns (it does not count as sent).
  size_t SealedBytes(const std::string& body) const;
  // The body of a received line (the line itself when unkeyed); error when
  // the envelope, its sequence number or its MAC is wrong.
  Result<std::string> Open(const std::string& line);

 private:
  std::string key_;
  Side side_ = Side::kProber;
  uint64_t sent_ = 0;
  uint64_t received_ = 0;
};

// Seal(body) written to conn.
Status WriteSealed(LineConn& conn, ControlSeal& seal, const std::string& body, uint64_t deadline_ns);
// One line read from conn and opened.
Result<std::string> ReadSealed(LineConn& conn, ControlSeal& seal, uint64_t deadline_ns,
                               const std::atomic<bool>* stop = nullptr);

}  // namespace rdmascope::probes
