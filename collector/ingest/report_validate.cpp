#include "collector/ingest/report_validate.h"

#include "collector/ingest/fabric_validate.h"
#include "collector/core/json_view.h"
#include "collector/core/simd_view.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace rdmascope::collector {
namespace {

constexpr int kSchemaVersion = 1;
constexpr uint64_t kMaxInt = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
constexpr uint64_t kMaxMs = 1ull << 53;  // integral doubles are exact up to here
constexpr double kTwo63 = 9223372036854775808.0;  // integral doubles below this fit int64_t
// What a real node can produce, so that no sum the collector forms of them
// (rollups, /metrics aggregates) can overflow: 2^40 probes in one interval is
// over a million years of probing at 10,000 a second; an interval is at most a
// day (interval_s's bound); a latency beyond an hour is no measurement.
constexpr uint64_t kMaxCount = 1ull << 40;
constexpr uint64_t kMaxIntervalMs = 86400ull * 1000;
constexpr double kMaxLatencyUs = 3600.0 * 1e6;
constexpr double kMaxLatencyMs = 3600.0 * 1e3;
constexpr uint64_t kMaxVendorErr = 0xffffffffull;  // ibv_wc's vendor_err is 32 bits

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
template <class V>
std::optional<uint64_t> AsUnsigned(const V& j) {
  switch (j.kind()) {
    case JsonKind::kUnsigned: return j.u64();
    case JsonKind::kFloat: {
      const double d = j.f64();
      if (std::isfinite(d) && d >= 0 && d < kTwo63 && std::floor(d) == d) return static_cast<uint64_t>(d);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

template <class V>
std::optional<int64_t> AsSigned(const V& j) {
  switch (j.kind()) {
    case JsonKind::kUnsigned: {
      const uint64_t v = j.u64();
      return v > kMaxInt ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(v));
    }
    case JsonKind::kSigned: return j.i64();
    case JsonKind::kFloat: {
      const double d = j.f64();
      if (std::isfinite(d) && std::fabs(d) < kTwo63 && std::floor(d) == d) return static_cast<int64_t>(d);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// V is NlohmannView or SimdView (json_view.h).
template <class V>
class Validator {
 public:
  explicit Validator(const ReportLimits& limits) : lim_(limits) {}
  std::optional<ValidationError> error;

  bool Fail(const std::string& path, std::string problem) {
    if (!error) error = ValidationError{path, std::move(problem)};
    return false;
  }

  // Fetches member `key` of object `obj`; absent leaves *out absent (kind kAbsent).
  bool Member(const V& obj, const char* key, const std::string& path, bool required, V* out) {
    *out = obj.member(key);
    if (out->kind() == JsonKind::kAbsent) return required ? Fail(path + "/" + key, "is required") : true;
    return true;
  }

  static bool Absent(const V& v) { return v.kind() == JsonKind::kAbsent; }
  static bool AbsentOrNull(const V& v) { return v.kind() == JsonKind::kAbsent || v.kind() == JsonKind::kNull; }

  bool Object(const V& j, const std::string& path) {
    return j.kind() == JsonKind::kObject ? true : Fail(path, "expected an object");
  }

  // The paths of members are built only when a member fails.
  bool String(const V& obj, const char* key, const std::string& path, bool required, bool nullable, size_t min,
              size_t max, bool (*charset)(char), const char* charset_text) {
    V v;
    if (!Member(obj, key, path, required, &v)) return false;
    if (Absent(v)) return true;
    if (v.kind() == JsonKind::kNull) return nullable ? true : Fail(path + "/" + key, "must not be null");
    if (v.kind() != JsonKind::kString)
      return Fail(path + "/" + key, nullable ? "expected a string or null" : "expected a string");
    const std::string_view s = v.str();
    if (s.size() < min || s.size() > max)
      return Fail(path + "/" + key, "expected " + std::to_string(min) + " to " + std::to_string(max) +
                                        " characters, got " + std::to_string(s.size()));
    for (char c : s)
      if (!charset(c)) return Fail(path + "/" + key, std::string("contains a character outside ") + charset_text);
    return true;
  }

  bool Unsigned(const V& obj, const char* key, const std::string& path, bool required, bool nullable,
                uint64_t max = kMaxInt) {
    V v;
    if (!Member(obj, key, path, required, &v)) return false;
    if (Absent(v)) return true;
    if (v.kind() == JsonKind::kNull) return nullable ? true : Fail(path + "/" + key, "must not be null");
    auto u = AsUnsigned(v);
    if (!u)
      return Fail(path + "/" + key,
                  nullable ? "expected a non-negative integer or null" : "expected a non-negative integer");
    if (*u > max) return Fail(path + "/" + key, "must be at most " + std::to_string(max));
    return true;
  }

  bool Number(const V& obj, const char* key, const std::string& path, bool required, bool nullable,
              double max = std::numeric_limits<double>::max()) {
    V v;
    if (!Member(obj, key, path, required, &v)) return false;
    if (Absent(v)) return true;
    if (v.kind() == JsonKind::kNull) return nullable ? true : Fail(path + "/" + key, "must not be null");
    if (!IsNumber(v)) return Fail(path + "/" + key, nullable ? "expected a number or null" : "expected a number");
    double d = v.f64();
    if (!std::isfinite(d) || d < 0) return Fail(path + "/" + key, "expected a finite non-negative number");
    if (d > max) return Fail(path + "/" + key, "must be at most " + std::to_string(max));
    return true;
  }

  bool NumberedName(const V& obj, const char* key, const std::string& path) {
    V v;
    if (!Member(obj, key, path, false, &v)) return false;
    if (AbsentOrNull(v)) return true;
    std::string p = path + "/" + key;
    if (v.kind() != JsonKind::kObject) return Fail(p, "expected an object {number, name} or null");
    return Unsigned(v, "number", p, true, false, 255) &&
           String(v, "name", p, true, false, 0, 64, Printable, "printable characters");
  }

  bool Stats(const V& obj, const char* key, const std::string& path) {
    V v;
    if (!Member(obj, key, path, false, &v)) return false;
    if (AbsentOrNull(v)) return true;
    std::string p = path + "/" + key;
    if (v.kind() != JsonKind::kObject) return Fail(p, "expected a latency object or null");
    if (!Unsigned(v, "count", p, true, false, kMaxCount)) return false;
    for (const char* q : {"min", "avg", "p50", "p90", "p99", "p999", "max"})
      if (!Number(v, q, p, false, true, kMaxLatencyUs)) return false;
    return true;
  }

  bool CounterMap(const V& obj, const char* key, const std::string& path) {
    V v;
    if (!Member(obj, key, path, false, &v)) return false;
    if (AbsentOrNull(v)) return true;
    std::string p = path + "/" + key;
    if (v.kind() != JsonKind::kObject) return Fail(p, "expected an object of counter name to integer or null");
    if (v.size() > lim_.max_counters_per_map)
      return Fail(p, "has more than " + std::to_string(lim_.max_counters_per_map) + " counters");
    return v.EachMember([&](std::string_view name, const V& value) {
      auto cp = [&] { return p + "/" + JsonPointerToken(name); };
      if (name.empty() || name.size() > 64) return Fail(cp(), "counter name must be 1 to 64 characters");
      for (char c : name)
        if (!CounterChar(c)) return Fail(cp(), "counter name contains a character outside [A-Za-z0-9_]");
      if (value.kind() == JsonKind::kNull) return true;
      auto u = AsUnsigned(value);
      if (!u) return Fail(cp(), "expected a non-negative integer or null");
      if (*u > kMaxInt) return Fail(cp(), "must be at most " + std::to_string(kMaxInt));
      return true;
    });
  }

  bool Port(const V& port, const std::string& p) {
    if (!Object(port, p)) return false;
    if (!Unsigned(port, "port", p, true, false, 255)) return false;
    if (!NumberedName(port, "state", p) || !NumberedName(port, "phys_state", p)) return false;
    if (!Unsigned(port, "lid", p, false, true, 0xffff) || !Unsigned(port, "sm_lid", p, false, true, 0xffff))
      return false;
    if (!String(port, "link_layer", p, false, true, 0, 32, Printable, "printable characters")) return false;
    if (!Unsigned(port, "active_mtu", p, false, true, 1u << 20)) return false;
    V rate;
    if (!Member(port, "rate", p, false, &rate)) return false;
    if (!AbsentOrNull(rate)) {
      std::string rp = p + "/rate";
      if (rate.kind() != JsonKind::kObject) return Fail(rp, "expected an object or null");
      if (!Number(rate, "gbps", rp, false, true, 1e6) ||
          !String(rate, "text", rp, false, true, 0, 64, Printable, "printable characters"))
        return false;
    }
    V gids;
    if (!Member(port, "gids", p, false, &gids)) return false;
    if (!AbsentOrNull(gids)) {
      std::string gp = p + "/gids";
      if (gids.kind() != JsonKind::kArray) return Fail(gp, "expected an array");
      if (gids.size() > lim_.max_gids_per_port)
        return Fail(gp, "has more than " + std::to_string(lim_.max_gids_per_port) + " entries");
      size_t i = 0;
      if (!gids.EachElement([&](const V& g) {
            std::string ip = gp + "/" + std::to_string(i++);
            return Object(g, ip) && Unsigned(g, "index", ip, true, false, 0xffff) &&
                   String(g, "gid", ip, true, false, 1, 64, GidChar, "[0-9a-fA-F:]") &&
                   String(g, "type", ip, false, true, 0, 32, Printable, "printable characters") &&
                   String(g, "ndev", ip, false, true, 0, 64, Printable, "printable characters");
          }))
        return false;
    }
    return CounterMap(port, "counters", p) && CounterMap(port, "hw_counters", p);
  }

  bool Device(const V& dev, const std::string& p) {
    if (!Object(dev, p)) return false;
    if (!String(dev, "name", p, true, false, 1, 64, IdChar, "[A-Za-z0-9._-]")) return false;
    for (const char* k : {"node_guid", "fw_ver", "board_id", "hca_type", "instance"})
      if (!String(dev, k, p, false, true, 0, 64, Printable, "printable characters")) return false;
    V ports;
    if (!Member(dev, "ports", p, true, &ports)) return false;
    if (ports.kind() != JsonKind::kArray) return Fail(p + "/ports", "expected an array");
    if (ports.size() > lim_.max_ports_per_device)
      return Fail(p + "/ports", "has more than " + std::to_string(lim_.max_ports_per_device) + " ports");
    size_t i = 0;
    return ports.EachElement([&](const V& port) { return Port(port, p + "/ports/" + std::to_string(i++)); });
  }

  bool Inventory(const V& r) {
    V inv;
    if (!Member(r, "inventory", "", false, &inv)) return false;
    if (AbsentOrNull(inv)) return true;
    if (!Object(inv, "/inventory")) return false;
    V devices;
    if (!Member(inv, "devices", "/inventory", true, &devices)) return false;
    if (devices.kind() != JsonKind::kArray) return Fail("/inventory/devices", "expected an array");
    if (devices.size() > lim_.max_devices)
      return Fail("/inventory/devices", "has more than " + std::to_string(lim_.max_devices) + " devices");
    size_t i = 0;
    if (!devices.EachElement([&](const V& d) { return Device(d, "/inventory/devices/" + std::to_string(i++)); }))
      return false;
    V warnings;
    if (!Member(inv, "warnings", "/inventory", false, &warnings)) return false;
    if (!AbsentOrNull(warnings)) {
      if (warnings.kind() != JsonKind::kArray) return Fail("/inventory/warnings", "expected an array of strings");
      if (warnings.size() > lim_.max_warnings)
        return Fail("/inventory/warnings", "has more than " + std::to_string(lim_.max_warnings) + " entries");
      size_t k = 0;
      return warnings.EachElement([&](const V& w) {
        std::string wp = "/inventory/warnings/" + std::to_string(k++);
        if (w.kind() != JsonKind::kString) return Fail(wp, "expected a string");
        if (w.str().size() > 1024) return Fail(wp, "expected at most 1024 characters");
        return true;
      });
    }
    return true;
  }

  bool Labels(const V& r) {
    V labels;
    if (!Member(r, "labels", "", false, &labels)) return false;
    if (AbsentOrNull(labels)) return true;
    if (labels.kind() != JsonKind::kObject) return Fail("/labels", "expected an object of strings");
    if (labels.size() > lim_.max_labels)
      return Fail("/labels", "has more than " + std::to_string(lim_.max_labels) + " labels");
    if (!labels.EachMember([&](std::string_view k, const V& v) {
          auto lp = [&] { return "/labels/" + JsonPointerToken(k); };
          if (k.empty() || k.size() > 64) return Fail(lp(), "label name must be 1 to 64 characters");
          for (char c : k)
            if (!IdChar(c)) return Fail(lp(), "label name contains a character outside [A-Za-z0-9._-]");
          if (v.kind() != JsonKind::kString) return Fail(lp(), "expected a string");
          const std::string_view s = v.str();
          if (s.size() > 256) return Fail(lp(), "expected at most 256 characters");
          for (char c : s)
            if (!Printable(c)) return Fail(lp(), "contains a control character");
          return true;
        }))
      return false;
    const V port = labels.member("control_port");
    if (!Absent(port)) {
      const std::string_view s = port.str();
      bool digits = !s.empty() && s.size() <= 5;
      for (char c : s) digits = digits && c >= '0' && c <= '9';
      if (!digits || std::stoul(std::string(s)) < 1 || std::stoul(std::string(s)) > 65535)
        return Fail("/labels/control_port", "expected a port number 1 to 65535 as a string");
    }
    return true;
  }

  bool ProbeError(const V& e, const std::string& p) {
    if (!Object(e, p)) return false;
    V status;
    if (!Member(e, "status", p, true, &status)) return false;
    auto s = AsSigned(status);
    if (!s || *s < -2 || *s > 255) return Fail(p + "/status", "expected an integer from -2 to 255");
    return String(e, "status_name", p, false, true, 0, 64, IdChar, "[A-Za-z0-9._-]") &&
           Unsigned(e, "vendor_err", p, false, true, kMaxVendorErr) &&
           String(e, "opcode", p, false, true, 0, 32, Printable, "printable characters") &&
           Number(e, "wall_ms", p, false, true, static_cast<double>(kMaxMs)) &&
           Number(e, "after_ms", p, false, true, kMaxLatencyMs) &&
           Number(e, "since_post_us", p, false, true, kMaxLatencyUs) &&
           Unsigned(e, "local_qpn", p, false, true, 0xffffff) &&
           Unsigned(e, "remote_qpn", p, false, true, 0xffffff) &&
           String(e, "explanation", p, false, true, 0, 4096, [](char) { return true; }, "");
  }

  bool Probe(const V& pr, const std::string& p) {
    if (!Object(pr, p)) return false;
    if (!String(pr, "target", p, true, false, 1, 128, IdChar, "[A-Za-z0-9._-]")) return false;
    V transport;
    if (!Member(pr, "transport", p, true, &transport)) return false;
    if (transport.kind() != JsonKind::kString || (transport.str() != "rc" && transport.str() != "ud"))
      return Fail(p + "/transport", "expected \"rc\" or \"ud\"");
    V local;
    if (!Member(pr, "local", p, false, &local)) return false;
    if (!AbsentOrNull(local)) {
      std::string lp = p + "/local";
      if (!Object(local, lp) || !String(local, "device", lp, false, true, 0, 64, IdChar, "[A-Za-z0-9._-]") ||
          !Unsigned(local, "port", lp, false, true, 255) || !Unsigned(local, "gid_index", lp, false, true, 0xffff))
        return false;
    }
    V remote;
    if (!Member(pr, "remote", p, false, &remote)) return false;
    if (!AbsentOrNull(remote)) {
      std::string rp = p + "/remote";
      if (!Object(remote, rp) || !String(remote, "host", rp, false, true, 0, 255, HostChar, "host name characters") ||
          !Unsigned(remote, "control_port", rp, false, true, 65535) ||
          !String(remote, "device", rp, false, true, 0, 64, IdChar, "[A-Za-z0-9._-]") ||
          !Unsigned(remote, "port", rp, false, true, 255))
        return false;
    }
    if (!Unsigned(pr, "interval_start_ms", p, true, false, kMaxMs) ||
        !Unsigned(pr, "interval_end_ms", p, true, false, kMaxMs))
      return false;
    const uint64_t start = *AsUnsigned(pr.member("interval_start_ms"));
    const uint64_t end = *AsUnsigned(pr.member("interval_end_ms"));
    if (end < start) return Fail(p + "/interval_end_ms", "must not be before interval_start_ms");
    if (end - start > kMaxIntervalMs)
      return Fail(p + "/interval_end_ms",
                  "must be at most " + std::to_string(kMaxIntervalMs) + " ms after interval_start_ms");
    V summary;
    if (!Member(pr, "summary", p, true, &summary)) return false;
    std::string sp = p + "/summary";
    if (!Object(summary, sp)) return false;
    if (!Unsigned(summary, "sent", sp, true, false, kMaxCount) ||
        !Unsigned(summary, "received", sp, true, false, kMaxCount) ||
        !Unsigned(summary, "lost", sp, true, false, kMaxCount) || !Number(summary, "loss_ratio", sp, false, true, 1.0))
      return false;
    // Each probe sent is received, lost, or still in flight at the interval's end.
    if (*AsUnsigned(summary.member("received")) + *AsUnsigned(summary.member("lost")) >
        *AsUnsigned(summary.member("sent")))
      return Fail(sp + "/sent", "must be at least received + lost");
    for (const char* k : {"rtt_us", "network_us", "responder_us", "read_us", "cold_rtt_us"})
      if (!Stats(summary, k, sp)) return false;
    V by_status;
    if (!Member(summary, "errors_by_status", sp, false, &by_status)) return false;
    if (!AbsentOrNull(by_status)) {
      std::string bp = sp + "/errors_by_status";
      if (by_status.kind() != JsonKind::kObject) return Fail(bp, "expected an object of status to count");
      if (by_status.size() > lim_.max_status_keys)
        return Fail(bp, "has more than " + std::to_string(lim_.max_status_keys) + " statuses");
      if (!by_status.EachMember([&](std::string_view k, const V& v) {
            auto kp = [&] { return bp + "/" + JsonPointerToken(k); };
            if (k.empty() || k.size() > 64) return Fail(kp(), "status key must be 1 to 64 characters");
            for (char c : k)
              if (!Printable(c)) return Fail(kp(), "status key contains a control character");
            auto u = AsUnsigned(v);
            if (!u) return Fail(kp(), "expected a non-negative integer");
            if (*u > kMaxCount) return Fail(kp(), "must be at most " + std::to_string(kMaxCount));
            return true;
          }))
        return false;
    }
    V errors;
    if (!Member(pr, "errors", p, false, &errors)) return false;
    if (!AbsentOrNull(errors)) {
      std::string ep = p + "/errors";
      if (errors.kind() != JsonKind::kArray) return Fail(ep, "expected an array");
      if (errors.size() > lim_.max_errors_per_probe)
        return Fail(ep, "has more than " + std::to_string(lim_.max_errors_per_probe) + " entries");
      size_t i = 0;
      return errors.EachElement([&](const V& e) { return ProbeError(e, ep + "/" + std::to_string(i++)); });
    }
    return true;
  }

  bool Probes(const V& r) {
    V probes;
    if (!Member(r, "probes", "", false, &probes)) return false;
    if (AbsentOrNull(probes)) return true;
    if (probes.kind() != JsonKind::kArray) return Fail("/probes", "expected an array");
    if (probes.size() > lim_.max_probes)
      return Fail("/probes", "has more than " + std::to_string(lim_.max_probes) + " entries");
    size_t i = 0;
    return probes.EachElement([&](const V& p) { return Probe(p, "/probes/" + std::to_string(i++)); });
  }

  // An optional top-level array of at most `max` entries, each checked by
  // `entry(element, its path)`.
  template <typename F>
  bool OptionalArray(const V& r, const char* key, size_t max, F entry) {
    const std::string path = std::string("/") + key;
    V list;
    if (!Member(r, key, "", false, &list)) return false;
    if (AbsentOrNull(list)) return true;
    if (list.kind() != JsonKind::kArray) return Fail(path, "expected an array");
    if (list.size() > max) return Fail(path, "has more than " + std::to_string(max) + " entries");
    size_t i = 0;
    return list.EachElement([&](const V& e) { return entry(e, path + "/" + std::to_string(i++)); });
  }

  bool ResponderEvents(const V& r) {
    return OptionalArray(r, "responder_events", lim_.max_responder_events, [&](const V& e, const std::string& p) {
      if (!Object(e, p) || !String(e, "device", p, true, false, 1, 64, IdChar, "[A-Za-z0-9._-]") ||
          !Unsigned(e, "port", p, true, false, 255) || !Unsigned(e, "qpn", p, true, false, 0xffffff) ||
          !String(e, "status", p, true, false, 1, 64, Printable, "printable characters") ||
          !String(e, "detail", p, false, true, 0, 1024, Printable, "printable characters") ||
          !Unsigned(e, "at_ms", p, true, false, kMaxMs))
        return false;
      V recovered;
      if (!Member(e, "recovered", p, true, &recovered)) return false;
      if (recovered.kind() != JsonKind::kBool) return Fail(p + "/recovered", "expected true or false");
      return true;
    });
  }

  bool ReportLosses(const V& r) {
    return OptionalArray(r, "report_losses", lim_.max_report_losses, [&](const V& e, const std::string& p) {
      if (!Object(e, p) || !Unsigned(e, "id", p, true, false, kMaxMs) ||
          !String(e, "reason", p, true, false, 1, 32, IdChar, "[A-Za-z0-9._-]") ||
          !Unsigned(e, "first_ms", p, true, false, kMaxMs) || !Unsigned(e, "last_ms", p, true, false, kMaxMs) ||
          !Unsigned(e, "count", p, true, false, kMaxMs))
        return false;
      if (*AsUnsigned(e.member("last_ms")) < *AsUnsigned(e.member("first_ms")))
        return Fail(p + "/last_ms", "must not be before first_ms");
      if (*AsUnsigned(e.member("count")) == 0) return Fail(p + "/count", "must be at least 1");
      V ended;
      if (!Member(e, "ended", p, true, &ended)) return false;
      if (ended.kind() != JsonKind::kBool) return Fail(p + "/ended", "expected true or false");
      return true;
    });
  }

  bool Report(const V& r) {
    if (r.kind() != JsonKind::kObject) return Fail("", "expected a JSON object");
    V version;
    if (!Member(r, "schema_version", "", true, &version)) return false;
    auto v = AsUnsigned(version);
    if (!v || *v != kSchemaVersion)
      return Fail("/schema_version", "unsupported schema version: this collector accepts " +
                                         std::to_string(kSchemaVersion));
    return String(r, "report_id", "", true, false, 1, 128, ReportIdChar, "[A-Za-z0-9._:-]") &&
           String(r, "node", "", true, false, 1, 128, IdChar, "[A-Za-z0-9._-]") &&
           String(r, "agent_version", "", false, true, 0, 64, Printable, "printable characters") &&
           Unsigned(r, "generated_at_ms", "", true, false, kMaxMs) &&
           Number(r, "interval_s", "", false, true, 86400.0) && Labels(r) && Inventory(r) && Probes(r) &&
           ResponderEvents(r) && ReportLosses(r);
  }

 private:
  const ReportLimits& lim_;
};

}  // namespace

std::string JsonPointerToken(std::string_view key) {
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
  Validator<NlohmannView> v(limits);
  v.Report(NlohmannView(report));
  if (v.error) return v.error;
  return ValidateFabricSections(report);
}

std::optional<ValidationError> ValidateReportExceptFabric(const SimdView& report, const ReportLimits& limits) {
  Validator<SimdView> v(limits);
  v.Report(report);
  return v.error;
}

}  // namespace rdmascope::collector
