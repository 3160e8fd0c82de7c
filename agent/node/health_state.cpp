#include "agent/node/health_state.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "agent/node/sysfs_parse.h"

namespace rdmascope {
namespace {

constexpr char kBootKey[] = "@boot_id";
constexpr char kInstancePrefix[] = "@instance/";

}  // namespace

std::string HealthCounterKey(const std::string& device, int port, const std::string& name) {
  return device + "/" + std::to_string(port) + "/" + name;
}

HealthState HealthStateOf(const Inventory& inv, const std::string& boot_id) {
  HealthState s;
  s.boot_id = boot_id;
  for (const Device& d : inv.devices) {
    if (d.instance) s.instances[d.name] = *d.instance;
    for (const Port& p : d.ports) {
      for (const CounterMap* m : {&p.counters, &p.hw_counters})
        for (const auto& [name, v] : *m)
          if (v) s.counters[HealthCounterKey(d.name, p.number, name)] = *v;
    }
  }
  return s;
}

std::string FormatHealthState(const HealthState& state) {
  std::string out;
  for (const auto& [key, v] : state.counters) out += key + " " + std::to_string(v) + "\n";
  if (!state.boot_id.empty()) out += std::string(kBootKey) + " " + state.boot_id + "\n";
  for (const auto& [dev, id] : state.instances) out += kInstancePrefix + dev + " " + id + "\n";
  return out;
}

Result<HealthState> ParseHealthState(const std::string& text) {
  HealthState s;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (line.empty()) continue;
    const size_t sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    const std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == kBootKey) {
      s.boot_id = value;
    } else if (key.rfind(kInstancePrefix, 0) == 0) {
      s.instances[key.substr(sizeof kInstancePrefix - 1)] = value;
    } else if (key.empty() || key[0] != '@') {
      auto v = ParseU64(value);
      if (key.empty() || !v) {
        return Status::Error("state file line " + std::to_string(n) + ": \"" + line.substr(0, 80) +
                             "\" is not \"DEV/PORT/COUNTER VALUE\"");
      }
      s.counters[key] = *v;
    }
  }
  return s;
}

std::string ReadHostBootId(const std::string& path) {
  std::ifstream in(path);
  std::string id;
  if (!in || !std::getline(in, id)) return "";
  while (!id.empty() && std::isspace(static_cast<unsigned char>(id.back()))) id.pop_back();
  if (id.size() > 64) id.resize(64);
  return id;
}

}  // namespace rdmascope
