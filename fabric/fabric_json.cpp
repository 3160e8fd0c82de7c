#include "fabric/fabric_json.h"

#include <charconv>
#include <string_view>

#include "common/ib_encoding.h"

namespace rdmascope::fabric {
namespace {

constexpr size_t kMaxLftEntries = 0xc000;  // unicast LIDs 0..0xbfff

NodeType TypeFromName(const std::string& s) {
  if (s == "CA") return NodeType::kCa;
  if (s == "Switch") return NodeType::kSwitch;
  if (s == "Router") return NodeType::kRouter;
  return NodeType::kUnknown;
}

int StateFromName(const std::string& s) {
  for (int i = 1; i <= 5; ++i)
    if (s == PortStateName(i)) return i;
  return 0;
}

int PhysFromName(const std::string& s) {
  for (int i = 1; i <= 7; ++i)
    if (s == PhysStateName(i)) return i;
  return 0;
}

nlohmann::json RemoteToJson(const std::optional<RemoteEnd>& r) {
  if (!r) return nullptr;
  return {{"guid", GuidText(r->guid)}, {"port", r->port}};
}

}  // namespace

// Built in place (no initializer-list copies): a 600-node sweep has ~40k values.
void PortIntoJson(const FabricPort& p, bool with_counters, nlohmann::json& j) {
  j["port"] = p.number;
  j["lid"] = p.lid;
  j["state"] = PortStateName(p.state);
  j["phys_state"] = PhysStateName(p.phys_state);
  j["width"] = ib::WidthText(p.width_active);
  j["speed"] = ib::SpeedText(p.speed_active, p.speed_ext_active);
  j["width_supported"] = ib::BestWidthText(p.width_supported);
  j["speed_supported"] = ib::BestSpeedText(p.speed_supported, p.speed_ext_supported);
  j["remote"] = RemoteToJson(p.remote);
  if (!with_counters) return;
  nlohmann::json& c = j["counters"] = nlohmann::json::object();
  nlohmann::json sat = nlohmann::json::array();
  for (const auto& [name, v] : p.counters) {
    c[name] = v.value;
    if (v.saturated) sat.push_back(name);
  }
  if (!sat.empty()) j["saturated"] = std::move(sat);
  if (p.counters_error) j["counters_error"] = *p.counters_error;
}

nlohmann::json PortToJson(const FabricPort& p, bool with_counters) {
  nlohmann::json j = nlohmann::json::object();
  PortIntoJson(p, with_counters, j);
  return j;
}

nlohmann::json FabricToJson(const Fabric& f, bool with_counters) {
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json& nodes = out["nodes"] = nlohmann::json::array();
  for (const FabricNode& n : f.nodes) {
    nlohmann::json& jn = nodes.emplace_back(nlohmann::json::object());
    jn["guid"] = GuidText(n.guid);
    jn["type"] = NodeTypeName(n.type);
    jn["description"] = n.description;
    jn["lid"] = n.lid;
    jn["num_ports"] = n.num_ports;
    nlohmann::json& ports = jn["ports"] = nlohmann::json::array();
    for (const FabricPort& p : n.ports) PortIntoJson(p, with_counters, ports.emplace_back(nlohmann::json::object()));
    if (!n.lft.empty()) jn["lft"] = n.lft;
  }
  nlohmann::json& unreachable = out["unreachable"] = nlohmann::json::array();
  for (const Unreachable& u : f.unreachable) {
    nlohmann::json& j = unreachable.emplace_back(nlohmann::json::object());
    j["path"] = u.path;
    j["what"] = u.what;
    if (u.guid) j["guid"] = GuidText(*u.guid);
    if (u.description) j["description"] = *u.description;
    if (u.lid) j["lid"] = *u.lid;
    if (u.via) j["via"] = RemoteToJson(u.via);
  }
  out["sweep_ms"] = f.sweep_ms;
  nlohmann::json& mads = out["mads"] = nlohmann::json::object();
  mads["sent"] = f.stats.mads_sent;
  mads["answered"] = f.stats.mads_answered;
  mads["timed_out"] = f.stats.mads_timed_out;
  mads["failed"] = f.stats.mads_failed;
  mads["not_sent"] = f.stats.mads_not_sent;
  mads["backoffs"] = f.stats.backoffs;
  mads["max_in_flight"] = f.stats.max_in_flight;
  mads["max_in_flight_per_node"] = f.stats.max_in_flight_per_target;
  return out;
}

namespace {

// Appends JSON text in nlohmann's compact dump() form: keys in sorted order.
class Writer {
 public:
  explicit Writer(std::string* out) : out_(*out) {}
  // Printable ASCII without '"' or '\\' goes out as it is (names, GUIDs,
  // almost every description); anything else takes nlohmann's escaping, so
  // the text is the same as dump()'s either way.
  void Str(std::string_view s) {
    for (char c : s) {
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        out_ += nlohmann::json(std::string(s)).dump();
        return;
      }
    }
    out_ += '"';
    out_ += s;
    out_ += '"';
  }
  void Num(uint64_t v) {
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }
  void Key(const char* k) {
    Sep();
    out_ += '"';
    out_ += k;
    out_ += "\":";
    first_ = true;  // the value follows without a comma
  }
  void Open(char c) {
    Sep();
    out_ += c;
    first_ = true;
  }
  void Close(char c) {
    out_ += c;
    first_ = false;
  }
  void Sep() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  void Value(std::string_view s) {
    Sep();
    Str(s);
  }
  void Value(uint64_t v) {
    Sep();
    Num(v);
  }
  void Raw(const std::string& s) {
    Sep();
    out_ += s;
  }

 private:
  std::string& out_;
  bool first_ = true;
};

void WriteRemote(Writer& w, const std::optional<RemoteEnd>& r) {
  if (!r) return w.Raw("null");
  w.Open('{');
  w.Key("guid");
  w.Value(GuidText(r->guid));
  w.Key("port");
  w.Value(static_cast<uint64_t>(r->port));
  w.Close('}');
}

void WritePort(Writer& w, const FabricPort& p, bool with_counters) {
  w.Open('{');
  if (with_counters) {
    w.Key("counters");
    w.Open('{');
    for (const auto& [name, v] : p.counters) {
      w.Key(name.c_str());
      w.Value(v.value);
    }
    w.Close('}');
    if (p.counters_error) {
      w.Key("counters_error");
      w.Value(*p.counters_error);
    }
  }
  w.Key("lid");
  w.Value(static_cast<uint64_t>(p.lid));
  w.Key("phys_state");
  w.Value(PhysStateName(p.phys_state));
  w.Key("port");
  w.Value(static_cast<uint64_t>(p.number));
  w.Key("remote");
  WriteRemote(w, p.remote);
  if (with_counters) {
    bool any = false;
    for (const auto& [name, v] : p.counters) any = any || v.saturated;
    if (any) {
      w.Key("saturated");
      w.Open('[');
      for (const auto& [name, v] : p.counters)
        if (v.saturated) w.Value(name);
      w.Close(']');
    }
  }
  w.Key("speed");
  w.Value(ib::SpeedText(p.speed_active, p.speed_ext_active));
  w.Key("speed_supported");
  w.Value(ib::BestSpeedText(p.speed_supported, p.speed_ext_supported));
  w.Key("state");
  w.Value(PortStateName(p.state));
  w.Key("width");
  w.Value(ib::WidthText(p.width_active));
  w.Key("width_supported");
  w.Value(ib::BestWidthText(p.width_supported));
  w.Close('}');
}

}  // namespace

std::string FabricJsonText(const Fabric& f, bool with_counters) {
  std::string out;
  out.reserve(f.nodes.size() * (with_counters ? 4096 : 1024));
  Writer w(&out);
  nlohmann::json rest = FabricToJson(Fabric{{}, f.unreachable, f.sweep_ms, f.stats}, false);
  w.Open('{');
  w.Key("mads");
  w.Raw(rest["mads"].dump());
  w.Key("nodes");
  w.Open('[');
  for (const FabricNode& n : f.nodes) {
    w.Open('{');
    w.Key("description");
    w.Value(n.description);
    w.Key("guid");
    w.Value(GuidText(n.guid));
    if (!n.lft.empty()) {
      w.Key("lft");
      w.Open('[');
      for (uint8_t port : n.lft) w.Value(static_cast<uint64_t>(port));
      w.Close(']');
    }
    w.Key("lid");
    w.Value(static_cast<uint64_t>(n.lid));
    w.Key("num_ports");
    w.Value(static_cast<uint64_t>(n.num_ports));
    w.Key("ports");
    w.Open('[');
    for (const FabricPort& p : n.ports) WritePort(w, p, with_counters);
    w.Close(']');
    w.Key("type");
    w.Value(NodeTypeName(n.type));
    w.Close('}');
  }
  w.Close(']');
  w.Key("sweep_ms");
  w.Raw(std::to_string(f.sweep_ms));
  w.Key("unreachable");
  w.Raw(rest["unreachable"].dump());
  w.Close('}');
  return out;
}

Result<Fabric> FabricFromJson(const nlohmann::json& j) {
  try {
    Fabric f;
    for (const auto& jn : j.at("nodes")) {
      FabricNode n;
      if (!ParseGuid(jn.at("guid").get<std::string>(), &n.guid))
        return Result<Fabric>::Error("fabric node guid is not hex: " + jn.at("guid").dump());
      n.type = TypeFromName(jn.value("type", ""));
      n.description = jn.value("description", "");
      n.lid = jn.value("lid", 0u);
      n.num_ports = jn.value("num_ports", 0);
      for (const auto& jp : jn.at("ports")) {
        FabricPort p;
        p.number = jp.at("port").get<int>();
        p.lid = jp.value("lid", 0u);
        p.state = StateFromName(jp.value("state", ""));
        p.phys_state = PhysFromName(jp.value("phys_state", ""));
        p.width_active = ib::WidthBits(jp.value("width", ""));
        p.width_supported = ib::WidthBits(jp.value("width_supported", ""));
        ib::SpeedBits(jp.value("speed", ""), &p.speed_active, &p.speed_ext_active);
        ib::SpeedBits(jp.value("speed_supported", ""), &p.speed_supported, &p.speed_ext_supported);
        if (jp.contains("remote") && jp["remote"].is_object()) {
          RemoteEnd r;
          if (!ParseGuid(jp["remote"].at("guid").get<std::string>(), &r.guid))
            return Result<Fabric>::Error("fabric remote guid is not hex");
          r.port = jp["remote"].at("port").get<int>();
          p.remote = r;
        }
        if (jp.contains("counters") && jp["counters"].is_object())
          for (const auto& [k, v] : jp["counters"].items())
            if (v.is_number_unsigned() || v.is_number_integer()) p.counters[k] = CounterValue{v.get<uint64_t>(), false};
        if (jp.contains("saturated") && jp["saturated"].is_array())
          for (const auto& s : jp["saturated"])
            if (s.is_string() && p.counters.count(s.get<std::string>())) p.counters[s.get<std::string>()].saturated = true;
        n.ports.push_back(std::move(p));
      }
      if (jn.contains("lft") && jn["lft"].is_array()) {
        if (jn["lft"].size() > kMaxLftEntries) return Result<Fabric>::Error("fabric node lft longer than the unicast LID space");
        for (const auto& e : jn["lft"]) {
          const unsigned port = e.get<unsigned>();
          if (port > kNoRoute) return Result<Fabric>::Error("fabric node lft entry is not a port number: " + e.dump());
          n.lft.push_back(static_cast<uint8_t>(port));
        }
      }
      f.nodes.push_back(std::move(n));
    }
    if (j.contains("unreachable") && j["unreachable"].is_array())
      for (const auto& ju : j["unreachable"]) {
        Unreachable u;
        u.path = ju.value("path", "");
        u.what = ju.value("what", "");
        uint64_t guid = 0;
        if (ju.contains("guid") && ju["guid"].is_string() && ParseGuid(ju["guid"].get<std::string>(), &guid))
          u.guid = guid;
        if (ju.contains("via") && ju["via"].is_object() && ju["via"].contains("guid") &&
            ParseGuid(ju["via"]["guid"].get<std::string>(), &guid))
          u.via = RemoteEnd{guid, ju["via"].value("port", 0)};
        if (ju.contains("description") && ju["description"].is_string()) u.description = ju["description"].get<std::string>();
        if (ju.contains("lid") && ju["lid"].is_number_unsigned()) u.lid = ju["lid"].get<uint32_t>();
        f.unreachable.push_back(std::move(u));
      }
    if (j.contains("sweep_ms")) f.sweep_ms = j["sweep_ms"].get<int64_t>();
    return f;
  } catch (const nlohmann::json::exception& e) {
    return Result<Fabric>::Error(std::string("fabric JSON: ") + e.what());
  }
}

}  // namespace rdmascope::fabric
