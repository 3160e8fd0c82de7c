// The agent's control-port protocol: one JSON object per line, each way.
//
//   {"op":"ud_info"}
//     -> {"ok":true,"qkey":Q,"endpoints":[{"device","port","gid_index","gid","lid","qpn","roce"}...]}
//   {"op":"rc_connect","target_gid":G,"qpn","psn","lid","gid","global","mtu",
//    "timeout","retry_cnt","rnr_retry","min_rnr_timer"[,"traffic_class","sl"][,"session":S]}
//     -> {"ok":true,"qpn","psn","lid","gid","global","mtu","read_addr","read_rkey","read_len"
//         [,"idle_timeout_ms":T]}
//   {"op":"hello"[,"v":2,"nonce":N]}, {"op":"auth","mac":M}: the handshake of
//     probes/control_auth.h; after it, lines travel sealed (probes/control_seal.h)
//   anything else -> {"ok":false,"error":"..."}
//
// Contract: lines are at most kMaxLineBytes; parsers never throw and reject
// missing fields, wrong types and out-of-range numbers with a message naming
// the field. A reply with idle_timeout_ms ends the connection: the
// responder's QP then lives until no probe came for that long, it fails, or
// an rc_connect with the same `session` (the prober's id, kept across its
// reconnects) replaces it. A reply without it comes from an agent older than
// that: its QP lives as long as the connection, which the prober keeps open.
// rc_connect's optional traffic_class (0..255) and sl (0..15) default to 0:
// the responder sets them on its QP's path so echoes and ACKs ride the
// prober's class.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "probes/qp_setup.h"

namespace rdmascope::probes {

constexpr size_t kMaxLineBytes = 4096;
constexpr uint32_t kProbeQkey = 0x11111111;  // qkey of every UD probe QP
constexpr int kMaxUdEndpoints = 64;
constexpr size_t kMaxSessionKeyBytes = 64;

struct UdEndpointInfo {
  std::string device;
  int port = 1;
  int gid_index = 0;
  std::string gid;   // IPv6 notation
  uint16_t lid = 0;
  uint32_t qpn = 0;
  bool roce = false;
  std::string rail;  // the serving agent's rail name; "" when it has none (older agents)
};

struct UdInfoReply {
  uint32_t qkey = kProbeQkey;
  std::vector<UdEndpointInfo> endpoints;
};

struct RcConnectRequest {
  std::string target_gid;   // which responder port/GID to use; empty: the first
  RemoteEndpoint prober;    // the prober's QP
  RcTuning tuning;
  ProbeClass probe_class;   // the responder's path asks for the same class
  std::string session;      // the prober's session id (at most kMaxSessionKeyBytes); "" from older probers
};

struct RcConnectReply {
  RemoteEndpoint responder;
  uint64_t read_addr = 0;
  uint32_t read_rkey = 0;
  uint32_t read_len = 0;
  uint64_t idle_timeout_ms = 0;  // 0: an older agent; the QP lives as long as the connection
};

enum class ControlOp { kUdInfo, kRcConnect, kHello, kAuth };

struct ControlRequest {
  ControlOp op = ControlOp::kUdInfo;
  RcConnectRequest rc;  // for kRcConnect
  std::string mac;      // for kAuth (probes/control_auth.h)
  int version = 1;      // for kHello: the prober's protocol version ("v"; absent = 1)
  std::string nonce;    // for kHello: the prober's nonce (v2)
};

Result<ControlRequest> ParseControlRequest(const std::string& line);
Result<UdInfoReply> ParseUdInfoReply(const std::string& line);
Result<RcConnectReply> ParseRcConnectReply(const std::string& line);

// Encoders return one line without the trailing '\n'.
std::string EncodeUdInfoRequest();
std::string EncodeRcConnectRequest(const RcConnectRequest& r);
std::string EncodeUdInfoReply(const UdInfoReply& r);
std::string EncodeRcConnectReply(const RcConnectReply& r);
std::string EncodeErrorReply(const std::string& error);

}  // namespace rdmascope::probes
