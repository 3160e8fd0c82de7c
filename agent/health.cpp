#include "agent/health.h"

#include "agent/sysfs_parse.h"

namespace rdmascope {
namespace {

constexpr int kPortActive = 4;
constexpr int kPhysLinkUp = 5;

void Add(HealthReport* r, Severity s, const Device& d, const Port& p, std::string what) {
  if (static_cast<int>(s) > static_cast<int>(r->severity)) r->severity = s;
  r->findings.push_back({s, d.name, p.number, std::move(what)});
}

void CheckCounters(HealthReport* r, const Device& d, const Port& p, const CounterMap& m, const Thresholds& t) {
  for (const auto& [name, value] : m) {
    auto it = t.find(name);
    if (it == t.end() || !value || *value < it->second) continue;
    Add(r, Severity::kWarning, d, p, name + " " + std::to_string(*value) + " >= " + std::to_string(it->second));
  }
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

HealthReport EvaluateHealth(const Inventory& inv, const Thresholds& thresholds) {
  HealthReport r;
  for (const Device& d : inv.devices) {
    for (const Port& p : d.ports) {
      ++r.ports_checked;
      if (!p.state) {
        Add(&r, Severity::kWarning, d, p, "port state unknown (state unreadable)");
      } else if (p.state->number != kPortActive || (p.phys_state && p.phys_state->number != kPhysLinkUp)) {
        std::string phys = p.phys_state ? p.phys_state->name : "unknown";
        Add(&r, Severity::kCritical, d, p, "state " + p.state->name + " (phys " + phys + ")");
      }
      CheckCounters(&r, d, p, p.counters, thresholds);
      CheckCounters(&r, d, p, p.hw_counters, thresholds);
    }
  }
  return r;
}

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kOk: return "OK";
    case Severity::kWarning: return "WARNING";
    case Severity::kCritical: return "CRITICAL";
  }
  return "UNKNOWN";
}

}  // namespace rdmascope
