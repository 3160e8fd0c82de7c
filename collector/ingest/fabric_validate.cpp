#include "collector/ingest/fabric_validate.h"

#include <cctype>
#include <cstdint>
#include <string>

namespace rdmascope::collector {
namespace {

using json = nlohmann::json;
using Err = std::optional<ValidationError>;

Err Fail(const std::string& at, const char* problem) { return ValidationError{at, problem}; }

// The member `k` of object `o`; nullptr when `o` is no object or has no such
// member. The only way this file reads a member: operator[] on a const json
// for an absent key is an assertion failure (an abort where NDEBUG is unset).
const json* Member(const json& o, const char* k) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(k);
  return it == o.end() ? nullptr : &*it;
}

bool Text(const json& o, const char* k, size_t max, bool required = true) {
  const json* v = Member(o, k);
  if (!v || v->is_null()) return !required;
  return v->is_string() && v->get_ref<const std::string&>().size() <= max;
}

bool NonEmptyText(const json& o, const char* k, size_t max) {
  const json* v = Member(o, k);
  return Text(o, k, max) && !v->get_ref<const std::string&>().empty();
}

// An integer in lo..hi, read without conversion: a value above INT64_MAX is
// out of range, never wrapped into it.
bool Int(const json& o, const char* k, int64_t lo, int64_t hi) {
  const json* v = Member(o, k);
  if (!v) return false;
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    return hi >= 0 && u <= static_cast<uint64_t>(hi) && (lo <= 0 || u >= static_cast<uint64_t>(lo));
  }
  return v->is_number_integer() && v->get<int64_t>() >= lo && v->get<int64_t>() <= hi;
}

bool Guid(const json& o, const char* k) {
  const json* v = Member(o, k);
  return v && IsGuidText(*v);
}

// A non-negative integer by value, as the report validator's views read it:
// "-0" is 0 (nlohmann types it signed, the decoder's conversion unsigned).
bool NonNegativeInteger(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

constexpr const char* kGuidProblem = "expected \"0x\" and 16 hex digits";

Err Counters(const json& port, const std::string& at, const FabricLimits& l) {
  const json* it = Member(port, "counters");
  if (!it) return std::nullopt;
  if (!it->is_object() || it->size() > l.max_counters) return Fail(at + "/counters", "expected an object of counters");
  for (const auto& [k, v] : it->items())
    if (k.empty() || k.size() > 64 || !NonNegativeInteger(v))
      return Fail(at + "/counters/" + JsonPointerToken(k), "expected a non-negative integer");
  return std::nullopt;
}

Err Port(const json& p, const std::string& at, const FabricLimits& l) {
  if (!p.is_object()) return Fail(at, "expected an object");
  if (!Int(p, "port", 0, 255)) return Fail(at + "/port", "expected a port number 0..255");
  for (const char* k : {"state", "phys_state", "width", "speed", "width_supported", "speed_supported"})
    if (!Text(p, k, 32, false)) return Fail(at + "/" + k, "expected a short string");
  if (p.contains("lid") && !Int(p, "lid", 0, 0xffff)) return Fail(at + "/lid", "expected a LID 0..65535");
  const json* r = Member(p, "remote");
  if (r && !r->is_null()) {
    if (!r->is_object()) return Fail(at + "/remote", "expected null or {\"guid\": \"0x...\", \"port\": N}");
    if (!Guid(*r, "guid")) return Fail(at + "/remote/guid", kGuidProblem);
    if (!Int(*r, "port", 0, 255)) return Fail(at + "/remote/port", "expected a port number 0..255");
  }
  return Counters(p, at, l);
}

// A switch's LinearForwardingTable: the egress port (255: none) by destination LID.
Err Lft(const json& n, const std::string& at, const FabricLimits& l) {
  const json* lft = Member(n, "lft");
  if (!lft) return std::nullopt;
  if (!lft->is_array() || lft->size() > l.max_lft_entries)
    return Fail(at + "/lft", "expected an array of at most 49152 egress ports (one per unicast LID)");
  const json* type = Member(n, "type");
  if (!type || !type->is_string() || type->get_ref<const std::string&>() != "Switch")
    return Fail(at + "/lft", "only a node of type \"Switch\" has a forwarding table");
  for (size_t i = 0; i < lft->size(); ++i) {
    const json& v = (*lft)[i];
    const bool port = NonNegativeInteger(v) && v.get<uint64_t>() <= 255;
    if (!port)
      return Fail(at + "/lft/" + std::to_string(i), "expected an egress port 0..255 (255: no route)");
  }
  return std::nullopt;
}

Err Neighbours(const json& r, const FabricLimits& l) {
  const json* it = Member(r, "neighbours");
  if (!it || it->is_null()) return std::nullopt;
  if (!it->is_array() || it->size() > l.max_neighbours) return Fail("/neighbours", "expected an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& n = (*it)[i];
    std::string at = "/neighbours/" + std::to_string(i);
    if (!n.is_object()) return Fail(at, "expected an object");
    if (!NonEmptyText(n, "device", 64)) return Fail(at + "/device", "expected a device name");
    if (!Int(n, "local_port", 1, 255)) return Fail(at + "/local_port", "expected a port number 1..255");
    if (!Guid(n, "guid")) return Fail(at + "/guid", kGuidProblem);
    if (!Text(n, "type", 16)) return Fail(at + "/type", "expected a short string");
    if (!Text(n, "description", l.max_text)) return Fail(at + "/description", "expected a string");
    const json* port = Member(n, "port");
    if (!port) return Fail(at + "/port", "expected the remote port object");
    if (Err e = Port(*port, at + "/port", l)) return e;
  }
  return std::nullopt;
}

Err Sweep(const json& r, const FabricLimits& l) {
  const json* it = Member(r, "fabric");
  if (!it || it->is_null()) return std::nullopt;
  const json& f = *it;
  if (!f.is_object()) return Fail("/fabric", "expected an object");
  const json* nodes = Member(f, "nodes");
  if (!nodes || !nodes->is_array() || nodes->size() > l.max_nodes)
    return Fail("/fabric/nodes", "expected an array of nodes");
  for (size_t i = 0; i < nodes->size(); ++i) {
    const json& n = (*nodes)[i];
    std::string at = "/fabric/nodes/" + std::to_string(i);
    if (!n.is_object()) return Fail(at, "expected an object");
    if (!Guid(n, "guid")) return Fail(at + "/guid", kGuidProblem);
    if (!Text(n, "type", 16)) return Fail(at + "/type", "expected a short string");
    if (!Text(n, "description", l.max_text)) return Fail(at + "/description", "expected a string");
    if (n.contains("num_ports") && !Int(n, "num_ports", 0, 255)) return Fail(at + "/num_ports", "expected 0..255");
    if (n.contains("lid") && !Int(n, "lid", 0, 0xffff)) return Fail(at + "/lid", "expected a LID 0..65535");
    const json* ports = Member(n, "ports");
    if (!ports || !ports->is_array() || ports->size() > l.max_ports_per_node)
      return Fail(at + "/ports", "expected an array of ports");
    for (size_t j = 0; j < ports->size(); ++j)
      if (Err e = Port((*ports)[j], at + "/ports/" + std::to_string(j), l)) return e;
    if (Err e = Lft(n, at, l)) return e;
  }
  const json* un = Member(f, "unreachable");
  if (un) {
    if (!un->is_array() || un->size() > l.max_nodes) return Fail("/fabric/unreachable", "expected an array");
    for (size_t i = 0; i < un->size(); ++i) {
      const json& u = (*un)[i];
      std::string at = "/fabric/unreachable/" + std::to_string(i);
      if (!u.is_object() || !Text(u, "path", 512) || !Text(u, "what", 1024))
        return Fail(at, "expected {\"path\", \"what\"}");
      if (u.contains("guid") && !Guid(u, "guid")) return Fail(at + "/guid", kGuidProblem);
      const json* via = Member(u, "via");
      if (via && !via->is_null()) {
        if (!via->is_object()) return Fail(at + "/via", "expected {\"guid\", \"port\"}");
        if (!Guid(*via, "guid")) return Fail(at + "/via/guid", kGuidProblem);
        if (!Int(*via, "port", 0, 255)) return Fail(at + "/via/port", "expected a port number 0..255");
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bool IsGuidText(const json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() != 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  for (size_t i = 2; i < s.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

std::optional<ValidationError> ValidateFabricSections(const json& report, const FabricLimits& limits) {
  if (Err e = Neighbours(report, limits)) return e;
  return Sweep(report, limits);
}

}  // namespace rdmascope::collector
