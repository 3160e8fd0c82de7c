#include "collector/fabric_validate.h"

#include <cctype>
#include <string>

namespace rdmascope::collector {
namespace {

using json = nlohmann::json;
using Err = std::optional<ValidationError>;

Err Fail(const std::string& at, const char* problem) { return ValidationError{at, problem}; }

bool Text(const json& o, const char* k, size_t max, bool required = true) {
  auto it = o.find(k);
  if (it == o.end() || it->is_null()) return !required;
  return it->is_string() && it->get_ref<const std::string&>().size() <= max;
}

bool Int(const json& o, const char* k, int64_t lo, int64_t hi) {
  auto it = o.find(k);
  return it != o.end() && it->is_number_integer() && it->get<int64_t>() >= lo && it->get<int64_t>() <= hi;
}

Err Counters(const json& port, const std::string& at, const FabricLimits& l) {
  auto it = port.find("counters");
  if (it == port.end()) return std::nullopt;
  if (!it->is_object() || it->size() > l.max_counters) return Fail(at + "/counters", "expected an object of counters");
  for (const auto& [k, v] : it->items())
    if (k.empty() || k.size() > 64 || !v.is_number_unsigned())
      return Fail(at + "/counters/" + JsonPointerToken(k), "expected a non-negative integer");
  return std::nullopt;
}

Err Port(const json& p, const std::string& at, const FabricLimits& l) {
  if (!p.is_object()) return Fail(at, "expected an object");
  if (!Int(p, "port", 0, 255)) return Fail(at + "/port", "expected a port number 0..255");
  for (const char* k : {"state", "phys_state", "width", "speed", "width_supported", "speed_supported"})
    if (!Text(p, k, 32, false)) return Fail(at + "/" + k, "expected a short string");
  if (p.contains("lid") && !Int(p, "lid", 0, 0xffff)) return Fail(at + "/lid", "expected a LID 0..65535");
  auto r = p.find("remote");
  if (r != p.end() && !r->is_null()) {
    if (!r->is_object() || !IsGuidText((*r)["guid"]) || !Int(*r, "port", 0, 255))
      return Fail(at + "/remote", "expected null or {\"guid\": \"0x...\", \"port\": N}");
  }
  return Counters(p, at, l);
}

Err Neighbours(const json& r, const FabricLimits& l) {
  auto it = r.find("neighbours");
  if (it == r.end() || it->is_null()) return std::nullopt;
  if (!it->is_array() || it->size() > l.max_neighbours) return Fail("/neighbours", "expected an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& n = (*it)[i];
    std::string at = "/neighbours/" + std::to_string(i);
    if (!n.is_object()) return Fail(at, "expected an object");
    if (!Text(n, "device", 64) || n["device"].get_ref<const std::string&>().empty())
      return Fail(at + "/device", "expected a device name");
    if (!Int(n, "local_port", 1, 255)) return Fail(at + "/local_port", "expected a port number 1..255");
    if (!IsGuidText(n["guid"])) return Fail(at + "/guid", "expected \"0x\" and 16 hex digits");
    if (!Text(n, "type", 16) || !Text(n, "description", l.max_text)) return Fail(at, "expected type and description");
    if (!n.contains("port")) return Fail(at + "/port", "expected the remote port object");
    if (Err e = Port(n["port"], at + "/port", l)) return e;
  }
  return std::nullopt;
}

Err Sweep(const json& r, const FabricLimits& l) {
  auto it = r.find("fabric");
  if (it == r.end() || it->is_null()) return std::nullopt;
  const json& f = *it;
  if (!f.is_object()) return Fail("/fabric", "expected an object");
  auto nodes = f.find("nodes");
  if (nodes == f.end() || !nodes->is_array() || nodes->size() > l.max_nodes)
    return Fail("/fabric/nodes", "expected an array of nodes");
  for (size_t i = 0; i < nodes->size(); ++i) {
    const json& n = (*nodes)[i];
    std::string at = "/fabric/nodes/" + std::to_string(i);
    if (!n.is_object()) return Fail(at, "expected an object");
    if (!IsGuidText(n["guid"])) return Fail(at + "/guid", "expected \"0x\" and 16 hex digits");
    if (!Text(n, "type", 16) || !Text(n, "description", l.max_text)) return Fail(at, "expected type and description");
    if (n.contains("num_ports") && !Int(n, "num_ports", 0, 255)) return Fail(at + "/num_ports", "expected 0..255");
    if (n.contains("lid") && !Int(n, "lid", 0, 0xffff)) return Fail(at + "/lid", "expected a LID 0..65535");
    auto ports = n.find("ports");
    if (ports == n.end() || !ports->is_array() || ports->size() > l.max_ports_per_node)
      return Fail(at + "/ports", "expected an array of ports");
    for (size_t j = 0; j < ports->size(); ++j)
      if (Err e = Port((*ports)[j], at + "/ports/" + std::to_string(j), l)) return e;
  }
  auto un = f.find("unreachable");
  if (un != f.end()) {
    if (!un->is_array() || un->size() > l.max_nodes) return Fail("/fabric/unreachable", "expected an array");
    for (size_t i = 0; i < un->size(); ++i) {
      const json& u = (*un)[i];
      std::string at = "/fabric/unreachable/" + std::to_string(i);
      if (!u.is_object() || !Text(u, "path", 512) || !Text(u, "what", 1024))
        return Fail(at, "expected {\"path\", \"what\"}");
      if (u.contains("guid") && !IsGuidText(u["guid"])) return Fail(at + "/guid", "expected \"0x\" and 16 hex digits");
      auto via = u.find("via");
      if (via != u.end() && !via->is_null() && (!via->is_object() || !IsGuidText((*via)["guid"]) || !Int(*via, "port", 0, 255)))
        return Fail(at + "/via", "expected {\"guid\", \"port\"}");
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
