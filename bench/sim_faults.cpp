#include "bench/sim_faults.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace rdmascope::bench {

namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

bool ParseNumber(const std::string& s, double* out) {
  try {
    size_t used = 0;
    *out = std::stod(s, &used);
    return used == s.size() && std::isfinite(*out);
  } catch (const std::exception&) {
    return false;
  }
}

std::string EndText(const fabric::PortRef& p) { return fabric::GuidText(p.guid) + "/" + std::to_string(p.port); }

Status Bad(const std::string& text, const std::string& why) {
  return Status::Error("--fault " + text + ": " + why);
}

// The host and NIC named "NODE" or "NODE/DEVICE".
Status FindHostNic(const std::string& text, const std::string& name, const std::string& device, const SimTopology& topo,
                   Fault* f) {
  auto it = topo.host_index.find(name);
  if (it == topo.host_index.end()) return Bad(text, "no host named " + name + " in the topology");
  f->host = it->second;
  if (device.empty()) return Status::Ok();
  const SimHost& h = topo.hosts[f->host];
  for (size_t i = 0; i < h.nics.size(); ++i)
    if (h.nics[i].device == device) {
      f->nic = static_cast<int>(i);
      return Status::Ok();
    }
  return Bad(text, "host " + name + " has no device " + device);
}

std::string GroupOf(const SimTopology& topo, size_t host) {
  const SimHost& h = topo.hosts[host];
  return h.nics.empty() ? "" : "leaf:" + fabric::GuidText(h.nics[0].leaf_guid);
}

}  // namespace

double FlapDownSeconds(double flap_s) { return std::min(flap_s / 2, 10.0); }

bool Fault::DownAt(int64_t t_ms, int64_t start_ms) const {
  if (down) return true;
  if (flap_s <= 0 || t_ms < start_ms) return false;
  const double into = std::fmod(static_cast<double>(t_ms - start_ms) / 1000.0, flap_s);
  return into < FlapDownSeconds(flap_s);
}

int Fault::DownTransitions(int64_t from_ms, int64_t to_ms, int64_t start_ms) const {
  from_ms = std::max(from_ms, start_ms);
  if (to_ms <= from_ms) return 0;
  if (down) return from_ms == start_ms ? 1 : 0;
  if (flap_s <= 0) return 0;
  const double period_ms = flap_s * 1000;
  // Periods begin at start + k * period: count k with begin in [from, to).
  const auto first = static_cast<int64_t>(std::ceil((from_ms - start_ms) / period_ms));
  const auto last = static_cast<int64_t>(std::ceil((to_ms - start_ms) / period_ms));
  return static_cast<int>(last - first);
}

Result<Fault> ParseFault(const std::string& text, const SimTopology& topo) {
  Fault f;
  f.text = text;
  std::vector<std::string> parts = Split(text, ':');
  if (parts.size() < 2 || parts[1].empty()) return Bad(text, "expected KIND:SUBJECT[:loss=X][:delay=US|P%][:down][:flap=S]");
  const std::string& kind = parts[0];
  const std::string& subject = parts[1];
  for (size_t i = 2; i < parts.size(); ++i) {
    const std::string& o = parts[i];
    const size_t eq = o.find('=');
    const std::string key = o.substr(0, eq), value = eq == std::string::npos ? "" : o.substr(eq + 1);
    double x = 0;
    if (key == "down" && eq == std::string::npos) {
      f.down = true;
    } else if (key == "rnr" && eq == std::string::npos) {
      f.rnr = true;
    } else if (key == "loss" && ParseNumber(value, &x) && x >= 0 && x <= 1) {
      f.loss = x;
    } else if (key == "flap" && ParseNumber(value, &x) && x >= 1) {
      f.flap_s = x;
    } else if (key == "delay" && !value.empty() && value.back() == '%' &&
               ParseNumber(value.substr(0, value.size() - 1), &x) && x > 0) {
      f.delay_pct = x;
    } else if (key == "delay" && ParseNumber(value, &x) && x > 0) {
      f.delay_us = x;
    } else {
      return Bad(text, "'" + o + "' is not loss=X (0..1), delay=US or delay=P%, down, flap=S (>= 1) or rnr");
    }
  }
  const bool any_effect = f.down || f.rnr || f.loss > 0 || f.delay_us > 0 || f.delay_pct > 0 || f.flap_s > 0;
  std::string effect_kind = f.rnr ? "rnr" : (f.down || f.flap_s > 0) ? "unreachable" : f.loss > 0 ? "loss" : "latency";
  if (kind == "host") {
    f.kind = FaultKind::kHost;
    if (Status s = FindHostNic(text, subject, "", topo, &f); !s.ok()) return s;
    if (!any_effect) f.down = true, effect_kind = "unreachable";
    f.expected = {"host", subject, effect_kind, ""};
  } else if (kind == "nic" || kind == "port") {
    f.kind = kind == "nic" ? FaultKind::kNic : FaultKind::kPort;
    std::vector<std::string> p = Split(subject, '/');
    if (p.size() != (kind == "nic" ? 2u : 3u)) return Bad(text, kind == "nic" ? "expected NODE/DEVICE" : "expected NODE/DEVICE/PORT");
    if (Status s = FindHostNic(text, p[0], p[1], topo, &f); !s.ok()) return s;
    if (kind == "port" && p[2] != std::to_string(topo.hosts[f.host].nics[f.nic].port))
      return Bad(text, p[0] + "/" + p[1] + " is cabled on port " + std::to_string(topo.hosts[f.host].nics[f.nic].port));
    if (!any_effect) return Bad(text, "say what happens: loss=X, delay=..., down or flap=S");
    if (kind == "port" && f.down) effect_kind = "port_down";
    f.expected = {kind, subject, effect_kind, ""};
  } else if (kind == "link") {
    f.kind = FaultKind::kLink;
    std::vector<std::string> p = Split(subject, '/');
    fabric::PortRef a;
    if (p.size() != 2 || !fabric::ParseGuid(p[0], &a.guid)) return Bad(text, "expected 0xGUID/PORT (either end of the link)");
    try {
      a.port = std::stoi(p[1]);
    } catch (const std::exception&) {
      return Bad(text, "'" + p[1] + "' is not a port number");
    }
    for (size_t k = 0; k < topo.planes.size() && f.plane < 0; ++k) {
      const fabric::FabricNode* n = topo.planes[k].routes->Node(a.guid);
      if (!n) continue;
      for (const fabric::FabricPort& port : n->ports)
        if (port.number == a.port && port.remote) {
          f.plane = static_cast<int>(k);
          f.end_a = a;
          f.end_b = fabric::PortRef{port.remote->guid, port.remote->port};
        }
      if (f.plane < 0) return Bad(text, fabric::GuidText(a.guid) + " has no cabled port " + p[1]);
    }
    if (f.plane < 0) return Bad(text, "no node " + fabric::GuidText(a.guid) + " in the topology");
    if (EndText(f.end_b) < EndText(f.end_a)) std::swap(f.end_a, f.end_b);
    if (!any_effect) return Bad(text, "say what happens: loss=X, delay=..., down or flap=S");
    f.expected = {"link", EndText(f.end_a) + "<->" + EndText(f.end_b), effect_kind, ""};
  } else if (kind == "switch") {
    f.kind = FaultKind::kSwitch;
    if (!fabric::ParseGuid(subject, &f.switch_guid)) return Bad(text, "expected a switch 0xGUID");
    for (size_t k = 0; k < topo.planes.size() && f.plane < 0; ++k) {
      const fabric::FabricNode* n = topo.planes[k].routes->Node(f.switch_guid);
      if (n && n->type == fabric::NodeType::kSwitch) f.plane = static_cast<int>(k);
    }
    if (f.plane < 0) return Bad(text, "no switch " + fabric::GuidText(f.switch_guid) + " in the topology");
    if (!any_effect) f.down = true, effect_kind = "unreachable";
    f.expected = {"switch", fabric::GuidText(f.switch_guid), effect_kind, ""};
  } else if (kind == "group") {
    f.kind = FaultKind::kGroup;
    f.members.assign(topo.hosts.size(), false);
    size_t n = 0;
    for (size_t i = 0; i < topo.hosts.size(); ++i)
      if (GroupOf(topo, i) == subject) f.members[i] = true, ++n;
    if (n == 0) return Bad(text, "no host is in group " + subject + " (groups are leaf:0x<GUID> of the first rail's leaf)");
    if (!any_effect) return Bad(text, "say what happens: loss=X or delay=...");
    f.expected = {"group", subject, effect_kind, ""};
  } else if (kind == "fleet") {
    f.kind = FaultKind::kFleet;
    if (subject != "all") return Bad(text, "the fleet's subject is 'all'");
    if (!any_effect) return Bad(text, "say what happens: loss=X or delay=...");
    f.expected = {"fleet", "all", effect_kind, ""};
  } else {
    return Bad(text, "kind '" + kind + "' is not host, nic, port, link, switch, group or fleet");
  }
  if (f.rnr && f.kind != FaultKind::kHost) return Bad(text, "rnr is a host's fault (its receives are not posted)");
  return f;
}

}  // namespace rdmascope::bench
