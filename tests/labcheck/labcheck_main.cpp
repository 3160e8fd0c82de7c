// rdmascope-labcheck: assertions the lab tests run inside the VM, where there
// is no scripting language to parse JSON. Test-only tool.
//
//   rdmascope-labcheck inventory DEVINFO.txt PORTS.json DEV...
//       ibv_devinfo -v output vs rdmactl ports --json; exit 1 on any difference
//   rdmascope-labcheck counter-grown BEFORE.json AFTER.json DEV PORT COUNTER MIN
//       rdmactl counters --json taken twice; exit 1 unless hw_counters or
//       counters COUNTER grew by at least MIN
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <fstream>
#include <sstream>

#include "tests/labcheck/inventory_crosscheck.h"

namespace {

using rdmascope::labcheck::CrossCheck;
using rdmascope::labcheck::ParseDevinfo;

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "labcheck: cannot read %s\n", path.c_str());
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool ReadJson(const std::string& path, nlohmann::json* out) {
  std::string text;
  if (!ReadFile(path, &text)) return false;
  *out = nlohmann::json::parse(text, nullptr, false);
  if (out->is_discarded()) {
    std::fprintf(stderr, "labcheck: %s is not JSON\n", path.c_str());
    return false;
  }
  return true;
}

int Inventory(int argc, char** argv) {
  std::string devinfo;
  nlohmann::json ports;
  if (argc < 5 || !ReadFile(argv[2], &devinfo) || !ReadJson(argv[3], &ports)) return 2;
  std::vector<std::string> devices(argv + 4, argv + argc);
  auto parsed = ParseDevinfo(devinfo);
  size_t nports = 0, ngids = 0;
  for (const auto& d : parsed)
    for (const auto& p : d.ports) {
      ++nports;
      ngids += p.gids.size();
    }
  auto diffs = CrossCheck(parsed, ports, devices);
  for (const auto& d : diffs) std::printf("DIFF %s\n", d.c_str());
  std::printf("inventory cross-check: %zu device(s), %zu port(s), %zu GID(s) compared, %zu difference(s)\n",
              devices.size(), nports, ngids, diffs.size());
  return diffs.empty() ? 0 : 1;
}

std::optional<uint64_t> Counter(const nlohmann::json& j, const std::string& dev, int port, const std::string& name) {
  for (const auto& d : j["devices"]) {
    if (d["name"] != dev) continue;
    for (const auto& p : d["ports"]) {
      if (p["port"] != port) continue;
      for (const char* group : {"hw_counters", "counters"})
        if (p[group].contains(name) && p[group][name].is_number()) return p[group][name].get<uint64_t>();
    }
  }
  return std::nullopt;
}

int CounterGrown(int argc, char** argv) {
  nlohmann::json before, after;
  if (argc != 8 || !ReadJson(argv[2], &before) || !ReadJson(argv[3], &after)) return 2;
  std::string dev = argv[4], name = argv[6];
  int port = std::atoi(argv[5]);
  uint64_t min = std::strtoull(argv[7], nullptr, 10);
  auto b = Counter(before, dev, port, name), a = Counter(after, dev, port, name);
  if (!b || !a) {
    std::printf("FAIL %s port %d %s: absent (before %s, after %s)\n", dev.c_str(), port, name.c_str(),
                b ? "present" : "absent", a ? "present" : "absent");
    return 1;
  }
  uint64_t grown = *a >= *b ? *a - *b : 0;
  bool ok = *a >= *b && grown >= min;
  std::printf("%s %s port %d %s: %llu -> %llu (grew %llu, want >= %llu)\n", ok ? "OK" : "FAIL", dev.c_str(), port,
              name.c_str(), static_cast<unsigned long long>(*b), static_cast<unsigned long long>(*a),
              static_cast<unsigned long long>(grown), static_cast<unsigned long long>(min));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "inventory") return Inventory(argc, argv);
  if (cmd == "counter-grown") return CounterGrown(argc, argv);
  std::fprintf(stderr,
               "usage: rdmascope-labcheck inventory DEVINFO.txt PORTS.json DEV...\n"
               "       rdmascope-labcheck counter-grown BEFORE.json AFTER.json DEV PORT COUNTER MIN\n");
  return 2;
}
