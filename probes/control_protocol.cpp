#include "probes/control_protocol.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/ib_encoding.h"
#include "probes/local_port.h"

namespace rdmascope::probes {

namespace {

using nlohmann::json;

// Reads an unsigned integer field in [0, max].
Status GetUint(const json& j, const char* key, uint64_t max, uint64_t* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Error(std::string("missing field '") + key + "'");
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<int64_t>() >= 0)) {
    return Status::Error(std::string("field '") + key + "' must be a non-negative integer");
  }
  uint64_t v = it->get<uint64_t>();
  if (v > max) return Status::Error(std::string("field '") + key + "' out of range (max " + std::to_string(max) + ")");
  *out = v;
  return Status::Ok();
}

Status GetString(const json& j, const char* key, bool required, std::string* out) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required) return Status::Error(std::string("missing field '") + key + "'");
    return Status::Ok();
  }
  if (!it->is_string()) return Status::Error(std::string("field '") + key + "' must be a string");
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > 256) return Status::Error(std::string("field '") + key + "' too long");
  *out = s;
  return Status::Ok();
}

Status GetBool(const json& j, const char* key, bool* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Error(std::string("missing field '") + key + "'");
  if (!it->is_boolean()) return Status::Error(std::string("field '") + key + "' must be a boolean");
  *out = it->get<bool>();
  return Status::Ok();
}

#define RETURN_IF_ERROR(expr) \
  do { Status _s = (expr); if (!_s.ok()) return _s; } while (0)

Status ReadEndpoint(const json& j, RemoteEndpoint* ep) {
  uint64_t v = 0;
  RETURN_IF_ERROR(GetUint(j, "qpn", 0xffffff, &v)); ep->qpn = uint32_t(v);
  RETURN_IF_ERROR(GetUint(j, "psn", 0xffffff, &v)); ep->psn = uint32_t(v);
  RETURN_IF_ERROR(GetUint(j, "lid", 0xffff, &v)); ep->lid = uint16_t(v);
  RETURN_IF_ERROR(GetUint(j, "mtu", 4096, &v));
  if (ib::MtuCode(v) == 0) {
    return Status::Error("field 'mtu' must be 256, 512, 1024, 2048 or 4096");
  }
  ep->mtu_bytes = int(v);
  RETURN_IF_ERROR(GetBool(j, "global", &ep->global));
  std::string gid;
  RETURN_IF_ERROR(GetString(j, "gid", true, &gid));
  auto g = GidFromString(gid);
  if (!g.ok()) return Status::Error("field 'gid': " + g.status().message());
  ep->gid = *g;
  return Status::Ok();
}

void WriteEndpoint(const RemoteEndpoint& ep, json& j) {
  j["qpn"] = ep.qpn;
  j["psn"] = ep.psn;
  j["lid"] = ep.lid;
  j["mtu"] = ep.mtu_bytes;
  j["global"] = ep.global;
  j["gid"] = GidToString(ep.gid);
}

// Parses one line into an object; error when too long, not JSON, or not an object.
Result<json> ParseObject(const std::string& line) {
  if (line.size() > kMaxLineBytes) return Status::Error("control message longer than " + std::to_string(kMaxLineBytes) + " bytes");
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error("control message is not valid JSON");
  if (!j.is_object()) return Status::Error("control message is not a JSON object");
  return j;
}

// Checks {"ok":...}; turns {"ok":false,"error":E} into an error carrying E.
Status CheckOk(const json& j) {
  auto it = j.find("ok");
  if (it == j.end() || !it->is_boolean()) return Status::Error("reply lacks boolean 'ok'");
  if (it->get<bool>()) return Status::Ok();
  // The whole text (a line is bounded): an older agent's may be long.
  auto err = j.find("error");
  const std::string e = err != j.end() && err->is_string() ? err->get<std::string>() : "unspecified";
  return Status::Error("peer refused: " + e);
}

}  // namespace

Result<ControlRequest> ParseControlRequest(const std::string& line) {
  try {
    auto j = ParseObject(line);
    if (!j.ok()) return j.status();
    std::string op;
    RETURN_IF_ERROR(GetString(*j, "op", true, &op));
    ControlRequest req;
    if (op == "ud_info") {
      req.op = ControlOp::kUdInfo;
      uint64_t from = 0;
      if (j->contains("from")) RETURN_IF_ERROR(GetUint(*j, "from", kMaxUdEndpoints, &from));
      req.ud_from = size_t(from);
      return req;
    }
    if (op == "hello") {
      req.op = ControlOp::kHello;
      uint64_t v = 1;
      if (j->contains("v")) RETURN_IF_ERROR(GetUint(*j, "v", 1000, &v));
      req.version = int(v);
      RETURN_IF_ERROR(GetString(*j, "nonce", false, &req.nonce));
      return req;
    }
    if (op == "auth") {
      req.op = ControlOp::kAuth;
      RETURN_IF_ERROR(GetString(*j, "mac", true, &req.mac));
      return req;
    }
    if (op != "rc_connect") return Status::Error("unknown op '" + op + "'");
    req.op = ControlOp::kRcConnect;
    RETURN_IF_ERROR(GetString(*j, "target_gid", false, &req.rc.target_gid));
    RETURN_IF_ERROR(ReadEndpoint(*j, &req.rc.prober));
    uint64_t v = 0;
    RETURN_IF_ERROR(GetUint(*j, "timeout", 31, &v)); req.rc.tuning.timeout = int(v);
    RETURN_IF_ERROR(GetUint(*j, "retry_cnt", 7, &v)); req.rc.tuning.retry_cnt = int(v);
    RETURN_IF_ERROR(GetUint(*j, "rnr_retry", 6, &v)); req.rc.tuning.rnr_retry = int(v);
    RETURN_IF_ERROR(GetUint(*j, "min_rnr_timer", 31, &v)); req.rc.tuning.min_rnr_timer = int(v);
    // Optional (older probers send neither): the class the responder's side of the path asks for.
    if (j->contains("traffic_class")) {
      RETURN_IF_ERROR(GetUint(*j, "traffic_class", kMaxTrafficClass, &v)); req.rc.probe_class.traffic_class = int(v);
    }
    if (j->contains("sl")) {
      RETURN_IF_ERROR(GetUint(*j, "sl", kMaxServiceLevel, &v)); req.rc.probe_class.sl = int(v);
    }
    RETURN_IF_ERROR(GetString(*j, "session", false, &req.rc.session));
    if (req.rc.session.size() > kMaxSessionKeyBytes)
      return Status::Error("field 'session' longer than " + std::to_string(kMaxSessionKeyBytes) + " bytes");
    return req;
  } catch (const std::exception& e) {
    return Status::Error(std::string("control message rejected: ") + e.what());
  }
}

Result<UdInfoReply> ParseUdInfoReply(const std::string& line) {
  try {
    auto j = ParseObject(line);
    if (!j.ok()) return j.status();
    RETURN_IF_ERROR(CheckOk(*j));
    UdInfoReply r;
    uint64_t v = 0;
    RETURN_IF_ERROR(GetUint(*j, "qkey", 0xffffffff, &v)); r.qkey = uint32_t(v);
    auto it = j->find("endpoints");
    if (it == j->end() || !it->is_array()) return Status::Error("field 'endpoints' must be an array");
    if (it->size() > size_t(kMaxUdEndpoints)) return Status::Error("too many endpoints");
    if (j->contains("total")) {
      RETURN_IF_ERROR(GetUint(*j, "total", kMaxUdEndpoints, &v));
      r.total = size_t(v);
    }
    if (j->contains("next")) {
      RETURN_IF_ERROR(GetUint(*j, "next", kMaxUdEndpoints, &v));
      r.next = size_t(v);
    }
    for (const auto& e : *it) {
      if (!e.is_object()) return Status::Error("endpoint is not an object");
      UdEndpointInfo ep;
      RETURN_IF_ERROR(GetString(e, "device", true, &ep.device));
      RETURN_IF_ERROR(GetUint(e, "port", 255, &v)); ep.port = int(v);
      RETURN_IF_ERROR(GetUint(e, "gid_index", 255, &v)); ep.gid_index = int(v);
      RETURN_IF_ERROR(GetString(e, "gid", true, &ep.gid));
      RETURN_IF_ERROR(GetUint(e, "lid", 0xffff, &v)); ep.lid = uint16_t(v);
      RETURN_IF_ERROR(GetUint(e, "qpn", 0xffffff, &v)); ep.qpn = uint32_t(v);
      RETURN_IF_ERROR(GetBool(e, "roce", &ep.roce));
      RETURN_IF_ERROR(GetString(e, "rail", false, &ep.rail));
      r.endpoints.push_back(ep);
    }
    return r;
  } catch (const std::exception& e) {
    return Status::Error(std::string("ud_info reply rejected: ") + e.what());
  }
}

Result<RcConnectReply> ParseRcConnectReply(const std::string& line) {
  try {
    auto j = ParseObject(line);
    if (!j.ok()) return j.status();
    RETURN_IF_ERROR(CheckOk(*j));
    RcConnectReply r;
    RETURN_IF_ERROR(ReadEndpoint(*j, &r.responder));
    uint64_t v = 0;
    RETURN_IF_ERROR(GetUint(*j, "read_addr", UINT64_MAX, &r.read_addr));
    RETURN_IF_ERROR(GetUint(*j, "read_rkey", 0xffffffff, &v)); r.read_rkey = uint32_t(v);
    RETURN_IF_ERROR(GetUint(*j, "read_len", 1 << 20, &v)); r.read_len = uint32_t(v);
    if (j->contains("idle_timeout_ms")) RETURN_IF_ERROR(GetUint(*j, "idle_timeout_ms", 86400000, &r.idle_timeout_ms));
    return r;
  } catch (const std::exception& e) {
    return Status::Error(std::string("rc_connect reply rejected: ") + e.what());
  }
}

std::string EncodeUdInfoRequest(size_t from) {
  if (from == 0) return R"({"op":"ud_info"})";  // what every agent understands
  return R"({"op":"ud_info","from":)" + std::to_string(from) + "}";
}

std::string EncodeRcConnectRequest(const RcConnectRequest& r) {
  json j;
  j["op"] = "rc_connect";
  if (!r.target_gid.empty()) j["target_gid"] = r.target_gid;
  WriteEndpoint(r.prober, j);
  j["timeout"] = r.tuning.timeout;
  j["retry_cnt"] = r.tuning.retry_cnt;
  j["rnr_retry"] = r.tuning.rnr_retry;
  j["min_rnr_timer"] = r.tuning.min_rnr_timer;
  j["traffic_class"] = r.probe_class.traffic_class;
  j["sl"] = r.probe_class.sl;
  if (!r.session.empty()) j["session"] = r.session;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string EncodeUdInfoReply(const UdInfoReply& r) {
  json j;
  j["ok"] = true;
  j["qkey"] = r.qkey;
  j["endpoints"] = json::array();
  for (const auto& e : r.endpoints) {
    j["endpoints"].push_back({{"device", e.device}, {"port", e.port}, {"gid_index", e.gid_index},
                              {"gid", e.gid}, {"lid", e.lid}, {"qpn", e.qpn}, {"roce", e.roce}});
    if (!e.rail.empty()) j["endpoints"].back()["rail"] = e.rail;
  }
  if (r.total) j["total"] = *r.total;
  if (r.next) j["next"] = *r.next;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<UdInfoPage> EncodeUdInfoPage(const UdInfoReply& all, size_t from,
                                    const std::function<size_t(const std::string&)>& line_bytes) {
  const size_t n = all.endpoints.size();
  if (from > n) {
    return Status::Error("ud_info: a page from endpoint " + std::to_string(from) + " asked for, but there are " +
                         std::to_string(n));
  }
  UdInfoReply page;
  page.qkey = all.qkey;
  page.total = n;
  auto encode = [&](size_t count) {
    page.endpoints.assign(all.endpoints.begin() + long(from), all.endpoints.begin() + long(from + count));
    page.next = from + count < n ? std::optional<size_t>(from + count) : std::nullopt;
    return EncodeUdInfoReply(page);
  };
  // The line grows with every endpoint (an endpoint outweighs the "next" it
  // may drop), so the largest page that fits is found by bisection.
  size_t lo = 0, hi = std::min(n - from, size_t(kMaxUdEndpoints));
  std::string best = encode(0);
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;
    std::string line = encode(mid);
    if (line_bytes(line) <= kMaxLineBytes) {
      lo = mid;
      best = std::move(line);
    } else {
      hi = mid - 1;
    }
  }
  if (from < n && lo == 0) {
    const UdEndpointInfo& e = all.endpoints[from];
    return Status::Error("ud_info: endpoint " + std::to_string(from) + " (" + e.device.substr(0, 64) + " port " +
                         std::to_string(e.port) + " GID index " + std::to_string(e.gid_index) +
                         ") alone does not fit a control line of " + std::to_string(kMaxLineBytes) +
                         " bytes: shorten its device or rail name");
  }
  if (lo != page.endpoints.size()) encode(lo);  // `page` back to the one in `best`
  return UdInfoPage{std::move(best), page.next};
}

Status AppendUdInfoPage(const UdInfoReply& page, size_t from, UdInfoReply* all) {
  const std::string where = "ud_info page from endpoint " + std::to_string(from);
  if (from == 0) {
    *all = UdInfoReply{};
    all->qkey = page.qkey;
    all->total = page.total;
  } else if (from != all->endpoints.size()) {
    return Status::Error(where + ": " + std::to_string(all->endpoints.size()) + " endpoints read before it");
  } else if (page.qkey != all->qkey) {
    return Status::Error(where + ": the qkey changed between pages");
  }
  if (all->endpoints.size() + page.endpoints.size() > size_t(kMaxUdEndpoints)) {
    return Status::Error(where + ": more than " + std::to_string(kMaxUdEndpoints) + " endpoints in all");
  }
  if (page.next && page.endpoints.empty()) return Status::Error(where + ": no endpoint, yet more to follow");
  all->endpoints.insert(all->endpoints.end(), page.endpoints.begin(), page.endpoints.end());
  all->next = page.next;
  if (page.next && *page.next != all->endpoints.size()) {
    return Status::Error(where + ": 'next' " + std::to_string(*page.next) + " does not follow its " +
                         std::to_string(page.endpoints.size()) + " endpoints");
  }
  if (!page.next && all->total && *all->total != all->endpoints.size()) {
    return Status::Error(where + ": the last page ends at " + std::to_string(all->endpoints.size()) +
                         " endpoints of the " + std::to_string(*all->total) + " announced");
  }
  return Status::Ok();
}

void OrderUdEndpoints(std::vector<UdEndpointInfo>& endpoints) {
  std::stable_partition(endpoints.begin(), endpoints.end(), [](const UdEndpointInfo& e) {
    auto gid = GidFromString(e.gid);
    return gid.ok() && IsIpv4MappedGid(*gid);
  });
}

std::string EncodeRcConnectReply(const RcConnectReply& r) {
  json j;
  j["ok"] = true;
  WriteEndpoint(r.responder, j);
  j["read_addr"] = r.read_addr;
  j["read_rkey"] = r.read_rkey;
  j["read_len"] = r.read_len;
  if (r.idle_timeout_ms != 0) j["idle_timeout_ms"] = r.idle_timeout_ms;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string EncodeErrorReply(const std::string& error) {
  std::string text = error.substr(0, kMaxErrorTextBytes);
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  json j;
  j["ok"] = false;
  j["error"] = text;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace rdmascope::probes
