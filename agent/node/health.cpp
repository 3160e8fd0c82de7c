#include "agent/node/health.h"

#include <cstdio>

#include "agent/node/sysfs_parse.h"
#include "common/counter_rules.h"

namespace rdmascope {
namespace {

constexpr int kPortActive = 4;
constexpr int kPhysLinkUp = 5;

void Add(HealthReport* r, Severity s, const Device& d, const Port& p, std::string what) {
  if (static_cast<int>(s) > static_cast<int>(r->severity)) r->severity = s;
  r->findings.push_back({s, d.name, p.number, std::move(what)});
}

std::string Label(const Device& d, const Port& p, const std::string& what) {
  return "'" + d.name + "_" + std::to_string(p.number) + "_" + what + "'";
}

// One counter map (`kind`: "counters" or "hw_counters") of one port.
void CheckCounters(HealthReport* r, const Device& d, const Port& p, const char* kind, const CounterMap& m,
                   const Thresholds& t, const HealthOptions& o) {
  for (const auto& [name, value] : m) {
    if (!value) continue;
    std::optional<CounterReading> previous;
    if (o.previous) {
      auto prev = o.previous->counters.find(HealthCounterKey(d.name, p.number, name));
      auto inst = o.previous->instances.find(d.name);
      if (prev != o.previous->counters.end())
        previous = CounterReading{prev->second, o.previous->boot_id, 0,
                                  inst == o.previous->instances.end() ? "" : inst->second};
    }
    const CounterDelta delta =
        ComputeCounterDelta(kind, name, previous, CounterReading{value, o.boot_id, 0, d.instance.value_or("")});
    if (delta.saturated) {
      Add(r, Severity::kWarning, d, p,
          name + " saturated at " + std::to_string(*value) +
              ": it counts no more errors until cleared; clear it to see new ones (perfquery -x -R or a counter "
              "reset)");
    }
    auto it = t.find(name);
    if (it == t.end()) continue;
    // Without a previous value (no state file, or a counter new to it) the value itself.
    const uint64_t v = delta.delta.value_or(*value);
    std::string since;
    if (delta.delta) {
      since = " since the previous run";
      if (delta.kind == DeltaKind::kWrapped || delta.kind == DeltaKind::kReset)
        since += std::string(" (") + (delta.kind == DeltaKind::kWrapped ? "wrapped" : "reset") + ")";
    }
    r->perfdata.push_back(Label(d, p, name) + "=" + std::to_string(v) + "c;" + std::to_string(it->second));
    if (v <= it->second) continue;
    Add(r, Severity::kWarning, d, p, name + " " + std::to_string(v) + since + " > " + std::to_string(it->second));
  }
}

bool Selected(const HealthOptions& o, const Device& d, const Port& p) {
  if (o.ports.empty()) return true;
  for (const auto& [dev, port] : o.ports)
    if (dev == d.name && (port == 0 || port == p.number)) return true;
  return false;
}

void CheckLink(HealthReport* r, const Device& d, const Port& p, const HealthOptions& o) {
  if (p.rate && p.rate->gbps) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", *p.rate->gbps);
    r->perfdata.push_back(Label(d, p, "rate_gbps") + "=" + buf);
  }
  if (p.active_mtu) r->perfdata.push_back(Label(d, p, "mtu") + "=" + std::to_string(*p.active_mtu) + "B");
  if (o.expect_rate_gbps) {
    if (!p.rate || !p.rate->gbps) {
      Add(r, Severity::kWarning, d, p, "rate unknown (expected " + std::to_string(*o.expect_rate_gbps) + " Gb/s)");
    } else if (*p.rate->gbps < *o.expect_rate_gbps) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "degraded link: rate %g Gb/s < expected %g Gb/s", *p.rate->gbps,
                    *o.expect_rate_gbps);
      Add(r, Severity::kWarning, d, p, buf);
    }
  }
  if (o.expect_width) {
    std::string w = p.rate && p.rate->width ? *p.rate->width : "unknown";
    if (w != *o.expect_width) Add(r, Severity::kWarning, d, p, "degraded link: width " + w + " != expected " + *o.expect_width);
  }
  if (o.expect_mtu && p.active_mtu && *p.active_mtu < *o.expect_mtu)
    Add(r, Severity::kWarning, d, p,
        "degraded link: active MTU " + std::to_string(*p.active_mtu) + " < expected " + std::to_string(*o.expect_mtu));
}

}  // namespace

Thresholds DefaultThresholds() { return DefaultCounterThresholds(); }

Status ParseThresholdOverride(const std::string& text, Thresholds* thresholds) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return Status::Error("bad threshold \"" + text + "\": expected COUNTER=VALUE, e.g. symbol_error=20");
  auto v = ParseU64(text.substr(eq + 1));
  if (!v) return Status::Error("bad threshold \"" + text + "\": value is not an unsigned number");
  (*thresholds)[text.substr(0, eq)] = *v;
  return Status::Ok();
}

Status ParsePortSelector(const std::string& text, std::pair<std::string, int>* out) {
  size_t slash = text.find('/');
  std::string dev = text.substr(0, slash);
  if (dev.empty()) return Status::Error("bad port \"" + text + "\": expected DEV or DEV/PORT");
  int port = 0;
  if (slash != std::string::npos) {
    auto n = ParseU64(text.substr(slash + 1));
    if (!n || *n < 1 || *n > 255) return Status::Error("bad port \"" + text + "\": PORT must be 1..255");
    port = int(*n);
  }
  *out = {dev, port};
  return Status::Ok();
}

// A PCIe link trained below its maximum (speed or lanes) is a degraded link.
static void CheckPcie(HealthReport* r, const Device& d) {
  char buf[160];
  if (d.pcie_speed_gts && d.pcie_max_speed_gts && *d.pcie_speed_gts < *d.pcie_max_speed_gts) {
    std::snprintf(buf, sizeof buf, "degraded PCIe link: %g GT/s < max %g GT/s", *d.pcie_speed_gts,
                  *d.pcie_max_speed_gts);
    Add(r, Severity::kWarning, d, Port{}, buf);
  }
  if (d.pcie_width && d.pcie_max_width && *d.pcie_width < *d.pcie_max_width) {
    std::snprintf(buf, sizeof buf, "degraded PCIe link: x%u < max x%u", *d.pcie_width, *d.pcie_max_width);
    Add(r, Severity::kWarning, d, Port{}, buf);
  }
  if (d.pcie_width) r->perfdata.push_back("'" + d.name + "_pcie_width'=" + std::to_string(*d.pcie_width));
}

HealthReport EvaluateHealth(const Inventory& inv, const Thresholds& thresholds, const HealthOptions& options) {
  HealthReport r;
  for (const Device& d : inv.devices) {
    bool any_selected = false;
    for (const Port& p : d.ports) any_selected = any_selected || Selected(options, d, p);
    if (any_selected || d.ports.empty()) CheckPcie(&r, d);
    for (const Port& p : d.ports) {
      if (!Selected(options, d, p)) continue;
      ++r.ports_checked;
      if (!p.state) {
        Add(&r, Severity::kWarning, d, p, "port state unknown (state unreadable)");
      } else if (p.state->number != kPortActive || (p.phys_state && p.phys_state->number != kPhysLinkUp)) {
        std::string phys = p.phys_state ? p.phys_state->name : "unknown";
        Add(&r, Severity::kCritical, d, p, "state " + p.state->name + " (phys " + phys + ")");
      } else {
        CheckLink(&r, d, p, options);
      }
      if (p.state) r.perfdata.push_back(Label(d, p, "state") + "=" + std::to_string(p.state->number));
      CheckCounters(&r, d, p, "counters", p.counters, thresholds, options);
      CheckCounters(&r, d, p, "hw_counters", p.hw_counters, thresholds, options);
    }
  }
  return r;
}

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kOk: return "OK";
    case Severity::kWarning: return "WARNING";
    case Severity::kCritical: return "CRITICAL";
    case Severity::kUnknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

}  // namespace rdmascope
