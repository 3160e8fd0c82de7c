// The agent's control-port protocol: one JSON object per line, each way.
//
//   {"op":"ud_info"[,"from":N]}
//     -> {"ok":true,"qkey":Q,"endpoints":[{"device","port","gid_index","gid","lid","qpn","roce"}...],
//         "total":T[,"next":M]}
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
//
// ud_info is paged, so it fits any number of endpoints in lines of
// kMaxLineBytes. Why paging and not a longer line: an endpoint's size depends
// on its device and rail names and the seal's escaping, and a node's endpoint
// count on its devices, ports and addresses (every RoCE v2 GID of a port is
// one: a dual-stack multi-rail node easily has 64), so no fixed line length
// provably fits them; a page is sized to the line it travels in. A page
// starts at endpoint `from` (absent = 0) and holds as many endpoints as fit
// in one line *after sealing* (EncodeUdInfoPage); `total` counts all of them
// and `next`, present while more follow, is where the next page starts
// (always `from` + the endpoints in this page). Pages of one connection come
// from one snapshot of the endpoints, so they are consistent. A prober reads
// every page (FetchUdInfo, probes/prober.h). Compatibility: an older prober
// sends no `from` and reads the first page alone (as many endpoints as it
// could ever have parsed); an agent lists the IPv4-mapped GIDs first
// (OrderUdEndpoints), so that page holds the GIDs probers choose for ~30
// ports. An older agent ignores `from` and answers one line without `next`,
// which ends the reading; one with too many endpoints for a line fails as it
// always did, named (FetchUdInfo). An agent lists at most kMaxUdEndpoints
// (all pages together); a prober refuses more.
//
// Every other reply is bounded: rc_connect's carries numbers and one GID
// (a few hundred bytes sealed); an error reply's text is cut to
// kMaxErrorTextBytes with control characters replaced, so even a text of
// quotes and backslashes (4 bytes each once sealed) stays under half a line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "probes/qp_setup.h"

namespace rdmascope::probes {

constexpr size_t kMaxLineBytes = 4096;
constexpr uint32_t kProbeQkey = 0x11111111;  // qkey of every UD probe QP
// Endpoints one agent lists in ud_info, all pages together: 16 devices x 2
// ports x 32 RoCE v2 GIDs. Bounds what a prober holds (~200 KB) and the
// pages it reads within one setup deadline.
constexpr int kMaxUdEndpoints = 1024;
// An error reply's text is cut to this many bytes (see above).
constexpr size_t kMaxErrorTextBytes = 512;
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

// One page of ud_info, or (FetchUdInfo) every page merged.
struct UdInfoReply {
  uint32_t qkey = kProbeQkey;
  std::vector<UdEndpointInfo> endpoints;
  std::optional<size_t> total;  // endpoints in all pages; absent from older agents
  std::optional<size_t> next;   // where the next page starts; absent on the last page
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
  size_t ud_from = 0;   // for kUdInfo: the first endpoint of the page asked for ("from")
};

Result<ControlRequest> ParseControlRequest(const std::string& line);
Result<UdInfoReply> ParseUdInfoReply(const std::string& line);
Result<RcConnectReply> ParseRcConnectReply(const std::string& line);

// Encoders return one line without the trailing '\n'.
// {"op":"ud_info"} for the first page, with "from" for a later one.
std::string EncodeUdInfoRequest(size_t from = 0);
std::string EncodeRcConnectRequest(const RcConnectRequest& r);
// The reply as it is (its endpoints, total and next), in one line.
std::string EncodeUdInfoReply(const UdInfoReply& r);

// The page of `all` that starts at `from`: as many endpoints as keep
// line_bytes(line) <= kMaxLineBytes (line_bytes: what the line weighs on the
// wire, e.g. ControlSeal::SealedBytes), with `total` and, when more follow,
// `next`. `from` == the endpoint count gives an empty last page. Errors: a
// `from` beyond the endpoints, or an endpoint that alone does not fit a line
// (it is named).
struct UdInfoPage {
  std::string line;
  std::optional<size_t> next;
};
Result<UdInfoPage> EncodeUdInfoPage(const UdInfoReply& all, size_t from,
                                    const std::function<size_t(const std::string&)>& line_bytes);
// Appends the page read at `from` to `all` (the first page also sets qkey and
// total). Errors: a `next` that is not `from` + the page's endpoints (no
// progress, or a gap), a qkey that changed, more than kMaxUdEndpoints.
Status AppendUdInfoPage(const UdInfoReply& page, size_t from, UdInfoReply* all);
// The order an agent lists its endpoints in: the IPv4-mapped GIDs
// (::ffff:a.b.c.d, the routable ones probers choose) first, then the others;
// each group keeps the order given (device, port, GID index). An older
// prober reads only the first page: this puts the most ports it can use there.
void OrderUdEndpoints(std::vector<UdEndpointInfo>& endpoints);

std::string EncodeRcConnectReply(const RcConnectReply& r);
// {"ok":false,"error":E}: E cut to kMaxErrorTextBytes, control characters as '?'.
std::string EncodeErrorReply(const std::string& error);

}  // namespace rdmascope::probes
