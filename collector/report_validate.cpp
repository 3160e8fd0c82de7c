#include "collector/report_validate.h"

#include "collector/fabric_validate.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace rdmascope::collector {
namespace {

using nlohmann::json;

constexpr int kSchemaVersion = 1;
constexpr uint64_t kMaxInt = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
constexpr uint64_t kMaxMs = 1ull << 53;  // integral doubles are exact up to here
constexpr double kTwo63 = 9223372036854775808.0;  // integral doubles below this fit int64_t

bool IdChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}
bool ReportIdChar(char c) { return IdChar(c) || c == ':'; }
bool CounterChar(char c) { return IdChar(c) && c != '.' && c != '-'; }
bool GidChar(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':'; }
bool HostChar(char c) { return IdChar(c) || c == ':' || c == '[' || c == ']' || c == '%'; }
bool Printable(char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; }

// A JSON value read as an unsigned integer: an integer, or an integral float.
std::optional<uint64_t> AsUnsigned(const json& j) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer()) {
    int64_t v = j.get<int64_t>();
    return v < 0 ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(v));
  }
  if (j.is_number_float()) {
    double d = j.get<double>();
    if (std::isfinite(d) && d >= 0 && d < kTwo63 && std::floor(d) == d) return static_cast<uint64_t>(d);
  }
  return std::nullopt;
}

std::optional<int64_t> AsSigned(const json& j) {
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    return v > kMaxInt ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(v));
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_float()) {
    double d = j.get<double>();
    if (std::isfinite(d) && std::fabs(d) < kTwo63 && std::floor(d) == d) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

class Validator {
 public:
  explicit Validator(const ReportLimits& limits) : lim_(limits) {}
  std::optional<ValidationError> error;

  bool Fail(const std::string& path, std::string problem) {
    if (!error) error = ValidationError{path, std::move(problem)};
    return false;
  }

  // Fetches member `key` of object `obj`; absent (or null when nullable) leaves *out null.
  bool Member(const json& obj, const char* key, const std::string& path, bool required, const json** out) {
    *out = nullptr;
    auto it = obj.find(key);
    if (it == obj.end()) return required ? Fail(path + "/" + key, "is required") : true;
    *out = &*it;
    return true;
  }

  bool Object(const json& j, const std::string& path) {
    return j.is_object() ? true : Fail(path, "expected an object");
  }

  bool String(const json& obj, const char* key, const std::string& path, bool required, bool nullable, size_t min,
              size_t max, bool (*charset)(char), const char* charset_text) {
    const json* v;
    if (!Member(obj, key, path, required, &v)) return false;
    if (!v) return true;
    std::string p = path + "/" + key;
    if (v->is_null()) return nullable ? true : Fail(p, "must not be null");
    if (!v->is_string()) return Fail(p, nullable ? "expected a string or null" : "expected a string");
    const std::string& s = v->get_ref<const std::string&>();
    if (s.size() < min || s.size() > max)
      return Fail(p, "expected " + std::to_string(min) + " to " + std::to_string(max) + " characters, got " +
                         std::to_string(s.size()));
    for (char c : s)
      if (!charset(c)) return Fail(p, std::string("contains a character outside ") + charset_text);
    return true;
  }

  bool Unsigned(const json& obj, const char* key, const std::string& path, bool required, bool nullable,
                uint64_t max = kMaxInt) {
    const json* v;
    if (!Member(obj, key, path, required, &v)) return false;
    if (!v) return true;
    std::string p = path + "/" + key;
    if (v->is_null()) return nullable ? true : Fail(p, "must not be null");
    auto u = AsUnsigned(*v);
    if (!u) return Fail(p, nullable ? "expected a non-negative integer or null" : "expected a non-negative integer");
    if (*u > max) return Fail(p, "must be at most " + std::to_string(max));
    return true;
  }

  bool Number(const json& obj, const char* key, const std::string& path, bool required, bool nullable,
              double max = std::numeric_limits<double>::max()) {
    const json* v;
    if (!Member(obj, key, path, required, &v)) return false;
    if (!v) return true;
    std::string p = path + "/" + key;
    if (v->is_null()) return nullable ? true : Fail(p, "must not be null");
    if (!v->is_number()) return Fail(p, nullable ? "expected a number or null" : "expected a number");
    double d = v->get<double>();
    if (!std::isfinite(d) || d < 0) return Fail(p, "expected a finite non-negative number");
    if (d > max) return Fail(p, "must be at most " + std::to_string(max));
    return true;
  }

  bool NumberedName(const json& obj, const char* key, const std::string& path) {
    const json* v;
    if (!Member(obj, key, path, false, &v)) return false;
    if (!v || v->is_null()) return true;
    std::string p = path + "/" + key;
    if (!v->is_object()) return Fail(p, "expected an object {number, name} or null");
    return Unsigned(*v, "number", p, true, false, 255) &&
           String(*v, "name", p, true, false, 0, 64, Printable, "printable characters");
  }

  bool Stats(const json& obj, const char* key, const std::string& path) {
    const json* v;
    if (!Member(obj, key, path, false, &v)) return false;
    if (!v || v->is_null()) return true;
    std::string p = path + "/" + key;
    if (!v->is_object()) return Fail(p, "expected a latency object or null");
    if (!Unsigned(*v, "count", p, true, false)) return false;
    for (const char* q : {"min", "avg", "p50", "p90", "p99", "p999", "max"})
      if (!Number(*v, q, p, false, true)) return false;
    return true;
  }

  bool CounterMap(const json& obj, const char* key, const std::string& path) {
    const json* v;
    if (!Member(obj, key, path, false, &v)) return false;
    if (!v || v->is_null()) return true;
    std::string p = path + "/" + key;
    if (!v->is_object()) return Fail(p, "expected an object of counter name to integer or null");
    if (v->size() > lim_.max_counters_per_map)
      return Fail(p, "has more than " + std::to_string(lim_.max_counters_per_map) + " counters");
    for (const auto& [name, value] : v->items()) {
      std::string cp = p + "/" + JsonPointerToken(name);
      if (name.empty() || name.size() > 64) return Fail(cp, "counter name must be 1 to 64 characters");
      for (char c : name)
        if (!CounterChar(c)) return Fail(cp, "counter name contains a character outside [A-Za-z0-9_]");
      if (value.is_null()) continue;
      auto u = AsUnsigned(value);
      if (!u) return Fail(cp, "expected a non-negative integer or null");
      if (*u > kMaxInt) return Fail(cp, "must be at most " + std::to_string(kMaxInt));
    }
    return true;
  }

  bool Port(const json& port, const std::string& p) {
    if (!Object(port, p)) return false;
    if (!Unsigned(port, "port", p, true, false, 255)) return false;
    if (!NumberedName(port, "state", p) || !NumberedName(port, "phys_state", p)) return false;
    if (!Unsigned(port, "lid", p, false, true, 0xffff) || !Unsigned(port, "sm_lid", p, false, true, 0xffff))
      return false;
    if (!String(port, "link_layer", p, false, true, 0, 32, Printable, "printable characters")) return false;
    if (!Unsigned(port, "active_mtu", p, false, true, 1u << 20)) return false;
    const json* rate;
    if (!Member(port, "rate", p, false, &rate)) return false;
    if (rate && !rate->is_null()) {
      std::string rp = p + "/rate";
      if (!rate->is_object()) return Fail(rp, "expected an object or null");
      if (!Number(*rate, "gbps", rp, false, true, 1e6) ||
          !String(*rate, "text", rp, false, true, 0, 64, Printable, "printable characters"))
        return false;
    }
    const json* gids;
    if (!Member(port, "gids", p, false, &gids)) return false;
    if (gids && !gids->is_null()) {
      std::string gp = p + "/gids";
      if (!gids->is_array()) return Fail(gp, "expected an array");
      if (gids->size() > lim_.max_gids_per_port)
        return Fail(gp, "has more than " + std::to_string(lim_.max_gids_per_port) + " entries");
      for (size_t i = 0; i < gids->size(); ++i) {
        const json& g = (*gids)[i];
        std::string ip = gp + "/" + std::to_string(i);
        if (!Object(g, ip) || !Unsigned(g, "index", ip, true, false, 0xffff) ||
            !String(g, "gid", ip, true, false, 1, 64, GidChar, "[0-9a-fA-F:]") ||
            !String(g, "type", ip, false, true, 0, 32, Printable, "printable characters") ||
            !String(g, "ndev", ip, false, true, 0, 64, Printable, "printable characters"))
          return false;
      }
    }
    return CounterMap(port, "counters", p) && CounterMap(port, "hw_counters", p);
  }

  bool Device(const json& dev, const std::string& p) {
    if (!Object(dev, p)) return false;
    if (!String(dev, "name", p, true, false, 1, 64, IdChar, "[A-Za-z0-9._-]")) return false;
    for (const char* k : {"node_guid", "fw_ver", "board_id", "hca_type"})
      if (!String(dev, k, p, false, true, 0, 64, Printable, "printable characters")) return false;
    const json* ports;
    if (!Member(dev, "ports", p, true, &ports)) return false;
    if (!ports->is_array()) return Fail(p + "/ports", "expected an array");
    if (ports->size() > lim_.max_ports_per_device)
      return Fail(p + "/ports", "has more than " + std::to_string(lim_.max_ports_per_device) + " ports");
    for (size_t i = 0; i < ports->size(); ++i)
      if (!Port((*ports)[i], p + "/ports/" + std::to_string(i))) return false;
    return true;
  }

  bool Inventory(const json& r) {
    const json* inv;
    if (!Member(r, "inventory", "", false, &inv)) return false;
    if (!inv || inv->is_null()) return true;
    if (!Object(*inv, "/inventory")) return false;
    const json* devices;
    if (!Member(*inv, "devices", "/inventory", true, &devices)) return false;
    if (!devices->is_array()) return Fail("/inventory/devices", "expected an array");
    if (devices->size() > lim_.max_devices)
      return Fail("/inventory/devices", "has more than " + std::to_string(lim_.max_devices) + " devices");
    for (size_t i = 0; i < devices->size(); ++i)
      if (!Device((*devices)[i], "/inventory/devices/" + std::to_string(i))) return false;
    const json* warnings;
    if (!Member(*inv, "warnings", "/inventory", false, &warnings)) return false;
    if (warnings && !warnings->is_null()) {
      if (!warnings->is_array()) return Fail("/inventory/warnings", "expected an array of strings");
      if (warnings->size() > lim_.max_warnings)
        return Fail("/inventory/warnings", "has more than " + std::to_string(lim_.max_warnings) + " entries");
      for (size_t i = 0; i < warnings->size(); ++i) {
        const json& w = (*warnings)[i];
        std::string wp = "/inventory/warnings/" + std::to_string(i);
        if (!w.is_string()) return Fail(wp, "expected a string");
        if (w.get_ref<const std::string&>().size() > 1024) return Fail(wp, "expected at most 1024 characters");
      }
    }
    return true;
  }

  bool Labels(const json& r) {
    const json* labels;
    if (!Member(r, "labels", "", false, &labels)) return false;
    if (!labels || labels->is_null()) return true;
    if (!labels->is_object()) return Fail("/labels", "expected an object of strings");
    if (labels->size() > lim_.max_labels)
      return Fail("/labels", "has more than " + std::to_string(lim_.max_labels) + " labels");
    for (const auto& [k, v] : labels->items()) {
      std::string lp = "/labels/" + JsonPointerToken(k);
      if (k.empty() || k.size() > 64) return Fail(lp, "label name must be 1 to 64 characters");
      for (char c : k)
        if (!IdChar(c)) return Fail(lp, "label name contains a character outside [A-Za-z0-9._-]");
      if (!v.is_string()) return Fail(lp, "expected a string");
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() > 256) return Fail(lp, "expected at most 256 characters");
      for (char c : s)
        if (!Printable(c)) return Fail(lp, "contains a control character");
    }
    if (labels->contains("control_port")) {
      const std::string& s = (*labels)["control_port"].get_ref<const std::string&>();
      bool digits = !s.empty() && s.size() <= 5;
      for (char c : s) digits = digits && c >= '0' && c <= '9';
      if (!digits || std::stoul(s) < 1 || std::stoul(s) > 65535)
        return Fail("/labels/control_port", "expected a port number 1 to 65535 as a string");
    }
    return true;
  }

  bool ProbeError(const json& e, const std::string& p) {
    if (!Object(e, p)) return false;
    const json* status;
    if (!Member(e, "status", p, true, &status)) return false;
    auto s = AsSigned(*status);
    if (!s || *s < -2 || *s > 255) return Fail(p + "/status", "expected an integer from -2 to 255");
    return String(e, "status_name", p, false, true, 0, 64, IdChar, "[A-Za-z0-9._-]") &&
           Unsigned(e, "vendor_err", p, false, true) &&
           String(e, "opcode", p, false, true, 0, 32, Printable, "printable characters") &&
           Number(e, "wall_ms", p, false, true) && Number(e, "after_ms", p, false, true) &&
           Number(e, "since_post_us", p, false, true) && Unsigned(e, "local_qpn", p, false, true, 0xffffff) &&
           Unsigned(e, "remote_qpn", p, false, true, 0xffffff) &&
           String(e, "explanation", p, false, true, 0, 4096, [](char) { return true; }, "");
  }

  bool Probe(const json& pr, const std::string& p) {
    if (!Object(pr, p)) return false;
    if (!String(pr, "target", p, true, false, 1, 128, IdChar, "[A-Za-z0-9._-]")) return false;
    const json* transport;
    if (!Member(pr, "transport", p, true, &transport)) return false;
    if (!transport->is_string() || (*transport != "rc" && *transport != "ud"))
      return Fail(p + "/transport", "expected \"rc\" or \"ud\"");
    const json* local;
    if (!Member(pr, "local", p, false, &local)) return false;
    if (local && !local->is_null()) {
      std::string lp = p + "/local";
      if (!Object(*local, lp) || !String(*local, "device", lp, false, true, 0, 64, IdChar, "[A-Za-z0-9._-]") ||
          !Unsigned(*local, "port", lp, false, true, 255) || !Unsigned(*local, "gid_index", lp, false, true, 0xffff))
        return false;
    }
    const json* remote;
    if (!Member(pr, "remote", p, false, &remote)) return false;
    if (remote && !remote->is_null()) {
      std::string rp = p + "/remote";
      if (!Object(*remote, rp) || !String(*remote, "host", rp, false, true, 0, 255, HostChar, "host name characters") ||
          !Unsigned(*remote, "control_port", rp, false, true, 65535) ||
          !String(*remote, "device", rp, false, true, 0, 64, IdChar, "[A-Za-z0-9._-]") ||
          !Unsigned(*remote, "port", rp, false, true, 255))
        return false;
    }
    if (!Unsigned(pr, "interval_start_ms", p, true, false, kMaxMs) ||
        !Unsigned(pr, "interval_end_ms", p, true, false, kMaxMs))
      return false;
    if (*AsUnsigned(pr["interval_end_ms"]) < *AsUnsigned(pr["interval_start_ms"]))
      return Fail(p + "/interval_end_ms", "must not be before interval_start_ms");
    const json* summary;
    if (!Member(pr, "summary", p, true, &summary)) return false;
    std::string sp = p + "/summary";
    if (!Object(*summary, sp)) return false;
    if (!Unsigned(*summary, "sent", sp, true, false) || !Unsigned(*summary, "received", sp, true, false) ||
        !Unsigned(*summary, "lost", sp, true, false) || !Number(*summary, "loss_ratio", sp, false, true, 1.0))
      return false;
    for (const char* k : {"rtt_us", "network_us", "responder_us", "read_us"})
      if (!Stats(*summary, k, sp)) return false;
    const json* by_status;
    if (!Member(*summary, "errors_by_status", sp, false, &by_status)) return false;
    if (by_status && !by_status->is_null()) {
      std::string bp = sp + "/errors_by_status";
      if (!by_status->is_object()) return Fail(bp, "expected an object of status to count");
      if (by_status->size() > lim_.max_status_keys)
        return Fail(bp, "has more than " + std::to_string(lim_.max_status_keys) + " statuses");
      for (const auto& [k, v] : by_status->items()) {
        std::string kp = bp + "/" + JsonPointerToken(k);
        if (k.empty() || k.size() > 64) return Fail(kp, "status key must be 1 to 64 characters");
        for (char c : k)
          if (!Printable(c)) return Fail(kp, "status key contains a control character");
        auto u = AsUnsigned(v);
        if (!u || *u > kMaxInt) return Fail(kp, "expected a non-negative integer");
      }
    }
    const json* errors;
    if (!Member(pr, "errors", p, false, &errors)) return false;
    if (errors && !errors->is_null()) {
      std::string ep = p + "/errors";
      if (!errors->is_array()) return Fail(ep, "expected an array");
      if (errors->size() > lim_.max_errors_per_probe)
        return Fail(ep, "has more than " + std::to_string(lim_.max_errors_per_probe) + " entries");
      for (size_t i = 0; i < errors->size(); ++i)
        if (!ProbeError((*errors)[i], ep + "/" + std::to_string(i))) return false;
    }
    return true;
  }

  bool Probes(const json& r) {
    const json* probes;
    if (!Member(r, "probes", "", false, &probes)) return false;
    if (!probes || probes->is_null()) return true;
    if (!probes->is_array()) return Fail("/probes", "expected an array");
    if (probes->size() > lim_.max_probes)
      return Fail("/probes", "has more than " + std::to_string(lim_.max_probes) + " entries");
    for (size_t i = 0; i < probes->size(); ++i)
      if (!Probe((*probes)[i], "/probes/" + std::to_string(i))) return false;
    return true;
  }

  bool Report(const json& r) {
    if (!r.is_object()) return Fail("", "expected a JSON object");
    const json* version;
    if (!Member(r, "schema_version", "", true, &version)) return false;
    auto v = AsUnsigned(*version);
    if (!v || *v != kSchemaVersion)
      return Fail("/schema_version", "unsupported schema version: this collector accepts " +
                                         std::to_string(kSchemaVersion));
    return String(r, "report_id", "", true, false, 1, 128, ReportIdChar, "[A-Za-z0-9._:-]") &&
           String(r, "node", "", true, false, 1, 128, IdChar, "[A-Za-z0-9._-]") &&
           String(r, "agent_version", "", false, true, 0, 64, Printable, "printable characters") &&
           Unsigned(r, "generated_at_ms", "", true, false, kMaxMs) &&
           Number(r, "interval_s", "", false, true, 86400.0) && Labels(r) && Inventory(r) && Probes(r);
  }

 private:
  const ReportLimits& lim_;
};

}  // namespace

std::string JsonPointerToken(const std::string& key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::optional<ValidationError> ValidateReport(const nlohmann::json& report, const ReportLimits& limits) {
  Validator v(limits);
  v.Report(report);
  if (v.error) return v.error;
  return ValidateFabricSections(report);
}

}  // namespace rdmascope::collector
