#include "collector/readmodel/metrics_port_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>
#include <utility>

#include "common/counter_names.h"

namespace rdmascope::collector {

using nlohmann::json;

namespace {

void AppendEscaped(std::string* out, std::string_view v, bool quotes) {
  if (v.find_first_of(quotes ? "\\\n\"" : "\\\n") == std::string_view::npos) {
    out->append(v);
    return;
  }
  for (char c : v) {
    if (c == '\\')
      *out += "\\\\";
    else if (c == '\n')
      *out += "\\n";
    else if (quotes && c == '"')
      *out += "\\\"";
    else
      out->push_back(c);
  }
}

void AppendLabelValue(std::string* out, const json& v) {
  if (v.is_string()) return AppendEscaped(out, v.get_ref<const std::string&>(), true);
  if (v.is_number_integer()) {
    char buf[24];
    auto r = v.is_number_unsigned() ? std::to_chars(buf, buf + sizeof buf, v.get<uint64_t>())
                                    : std::to_chars(buf, buf + sizeof buf, v.get<int64_t>());
    out->append(buf, r.ptr);
    return;
  }
  AppendEscaped(out, MetricLabelText(v), true);
}

// A sample value as the text serializer writes a double (16 significant digits).
void AppendValue(std::string* out, double v) {
  if (v == std::trunc(v) && std::fabs(v) < 1e15 && !(v == 0 && std::signbit(v))) {  // whole: the same digits, without printf
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v));
    out->append(buf, r.ptr);
  } else if (std::isnan(v)) {
    *out += "Nan";
  } else if (std::isinf(v)) {
    *out += v < 0 ? "-Inf" : "+Inf";
  } else {
    char buf[32];
    int n = std::snprintf(buf, sizeof buf, "%.16g", v);
    out->append(buf, static_cast<size_t>(n));
  }
}

// name{node="..",device="..",port=".." then extra labels, without the closing brace.
void AppendPortSeries(std::string* out, const std::string& name, const json& row) {
  *out += name;
  *out += "{node=\"";
  AppendLabelValue(out, row["node"]);
  *out += "\",device=\"";
  AppendLabelValue(out, row["device"]);
  *out += "\",port=\"";
  AppendLabelValue(out, row["port"]);
  out->push_back('"');
}

void AppendLabel(std::string* out, const char* name, const json& v) {
  out->push_back(',');
  *out += name;
  *out += "=\"";
  AppendLabelValue(out, v);
  out->push_back('"');
}

void EndSample(std::string* out, double v) {
  *out += "} ";
  AppendValue(out, v);
  out->push_back('\n');
}

// The HELP and TYPE lines of f.
void AppendFamilyHeader(const TextFamily& f, std::string* out) {
  *out += "# HELP ";
  *out += f.name;
  out->push_back(' ');
  AppendEscaped(out, f.help, false);
  *out += "\n# TYPE ";
  *out += f.name;
  out->push_back(' ');
  *out += f.type;
  out->push_back('\n');
}

void PortSampleFamilies(const std::vector<const json*>& sets, PortFamilies* families) {
  TextFamily info{"rdmascope_port_info",
                  "Port identity: link layer, LID, first GID, active MTU (bytes), rate (Gb/s); always 1.", "gauge", {}};
  TextFamily state{"rdmascope_port_state",
                   "Port logical state number (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER).", "gauge", {}};
  TextFamily up{"rdmascope_port_up", "1 when the port state is ACTIVE, else 0 (also when the state is unknown).",
                "gauge", {}};
  static const json kNull;
  for (const json* set : sets) {
    for (const json& p : *set) {
      const json& gids = p["gids"];
      const json& first = gids.is_array() && !gids.empty() && gids[0].is_object() && gids[0].contains("gid")
                              ? gids[0]["gid"]
                              : kNull;
      AppendPortSeries(&info.body, info.name, p);
      AppendLabel(&info.body, "link_layer", p["link_layer"]);
      AppendLabel(&info.body, "lid", p["lid"]);
      AppendLabel(&info.body, "gid", first);
      AppendLabel(&info.body, "mtu", p["active_mtu"]);
      AppendLabel(&info.body, "rate", p["rate_gbps"]);
      EndSample(&info.body, 1);
      const json& st = p["state"];
      if (st.is_number()) {
        AppendPortSeries(&state.body, state.name, p);
        EndSample(&state.body, st.get<double>());
      }
      AppendPortSeries(&up.body, up.name, p);
      EndSample(&up.body, (st.is_number() && st.get<double>() == 4) ? 1 : 0);
    }
  }
  families->push_back(std::move(info));
  families->push_back(std::move(state));
  families->push_back(std::move(up));
}

void CounterFamilies(const std::vector<const json*>& sets, PortFamilies* families) {
  // The family of each (kind, counter name), looked up once per name, not
  // once per series; keys view the rows' own strings, which outlive this.
  struct Target {
    size_t family;
    bool labelled;  // the counter's name goes into a "counter" label
  };
  std::map<std::pair<std::string_view, std::string_view>, Target> targets;
  std::map<std::string, size_t> by_name;
  auto family = [&](const std::string& name, std::string help) {
    auto [it, added] = by_name.emplace(name, families->size());
    if (added) families->push_back({name, std::move(help), "counter", {}});
    return it->second;
  };
  for (const json* set : sets) {
    for (const json& c : *set) {
      // Rows come from the store's columns; anything else is left out rather than thrown on.
      if (!c["kind"].is_string() || !c["name"].is_string() || !c["value"].is_number()) continue;
      const std::string& kind = c["kind"].get_ref<const std::string&>();
      const std::string& sysfs = c["name"].get_ref<const std::string&>();
      if (!IsKnownCounterName(kind, sysfs)) continue;  // bounded series: the table's names only
      auto it = targets.find({kind, sysfs});
      if (it == targets.end()) {
        std::string name = kind == "counters" ? PortCounterMetricName(sysfs) : "";
        Target t;
        if (!name.empty()) {
          t = {family(name, "Port counter " + sysfs + " (sysfs ports/N/counters), as last reported."), false};
        } else {
          bool hw = kind == "hw_counters";
          t = {family(hw ? "rdmascope_port_hw_stat_total" : "rdmascope_port_stat_total",
                      hw ? "Port hw_counters (driver-specific), as last reported."
                         : "Port counters without a dedicated metric name, as last reported."),
               true};
        }
        it = targets.emplace(std::pair<std::string_view, std::string_view>(kind, sysfs), t).first;
      }
      TextFamily& f = (*families)[it->second.family];
      AppendPortSeries(&f.body, f.name, c);
      if (it->second.labelled) AppendLabel(&f.body, "counter", c["name"]);
      EndSample(&f.body, c["value"].get<double>());
    }
  }
}

}  // namespace

std::string MetricLabelText(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v.get<double>());
    return buf;
  }
  return v.dump();
}

PortFamilies RenderPortFamilies(const PortRowSets& rows) {
  PortFamilies families;
  PortSampleFamilies(rows.ports, &families);
  CounterFamilies(rows.counters, &families);
  std::sort(families.begin(), families.end(), [](const TextFamily& a, const TextFamily& b) { return a.name < b.name; });
  families.erase(std::remove_if(families.begin(), families.end(), [](const TextFamily& f) { return f.body.empty(); }),
                 families.end());
  return families;
}

void AppendPortFamiliesText(const std::vector<const PortFamilies*>& parts, std::string* out) {
  // Family name -> its header (from the first part that has it) and every part's samples, in part order.
  struct Merged {
    const TextFamily* first = nullptr;
    std::vector<const std::string*> bodies;
  };
  std::map<std::string_view, Merged> merged;
  size_t bytes = 0;
  for (const PortFamilies* part : parts)
    for (const TextFamily& f : *part) {
      Merged& m = merged[f.name];
      if (!m.first) m.first = &f;
      m.bodies.push_back(&f.body);
      bytes += f.body.size();
    }
  out->reserve(out->size() + bytes + merged.size() * 256);
  for (const auto& [name, m] : merged) {
    AppendFamilyHeader(*m.first, out);
    for (const std::string* body : m.bodies) *out += *body;
  }
}

std::string PortCounterMetricName(const std::string& sysfs_name) {
  static const std::map<std::string, std::string> kNames = {
      {"symbol_error", "symbol_error_total"},
      {"link_error_recovery", "link_error_recovery_total"},
      {"link_downed", "link_downed_total"},
      {"port_rcv_errors", "receive_errors_total"},
      {"port_rcv_remote_physical_errors", "receive_remote_physical_errors_total"},
      {"port_rcv_switch_relay_errors", "receive_switch_relay_errors_total"},
      {"port_xmit_discards", "discards_transmitted_total"},
      {"port_xmit_constraint_errors", "constraint_errors_transmitted_total"},
      {"port_rcv_constraint_errors", "constraint_errors_received_total"},
      {"local_link_integrity_errors", "local_link_integrity_errors_total"},
      {"excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors_total"},
      {"VL15_dropped", "vl15_dropped_total"},
      {"port_xmit_wait", "transmit_wait_total"},
      {"port_xmit_data_bytes", "data_transmitted_bytes_total"},
      {"port_rcv_data_bytes", "data_received_bytes_total"},
      {"port_xmit_packets", "packets_transmitted_total"},
      {"port_rcv_packets", "packets_received_total"},
      {"unicast_xmit_packets", "unicast_packets_transmitted_total"},
      {"unicast_rcv_packets", "unicast_packets_received_total"},
      {"multicast_xmit_packets", "multicast_packets_transmitted_total"},
      {"multicast_rcv_packets", "multicast_packets_received_total"},
  };
  auto it = kNames.find(sysfs_name);
  return it == kNames.end() ? "" : "rdmascope_port_" + it->second;
}

}  // namespace rdmascope::collector
