#include "cli/inventory_source.h"

#include <cstdio>

#include "agent/node/inventory.h"
#include "agent/node/sysfs_parse.h"

namespace rdmascope::cli {

Inventory LoadInventory(const GlobalOptions& g, bool with_counters) {
  SysfsReader fs(g.sysfs_root);
  InventoryOptions options;
  options.read_counters = with_counters;
  std::unique_ptr<VerbsInfoSource> verbs;
  if (fs.root() == "/sys") {
    verbs = MakeLibibverbsInfoSource();
    options.verbs = verbs.get();
  }
  return ReadInventory(fs, options);
}

bool ApplyFilter(const InventoryFilter& f, Inventory* inv) {
  if (f.device) {
    std::vector<Device> kept;
    for (Device& d : inv->devices)
      if (d.name == *f.device) kept.push_back(std::move(d));
    if (kept.empty()) {
      std::fprintf(stderr, "rdmactl: no RDMA device named \"%s\"\n", f.device->c_str());
      return false;
    }
    inv->devices = std::move(kept);
  }
  if (f.port) {
    for (Device& d : inv->devices) {
      std::vector<Port> kept;
      for (Port& p : d.ports)
        if (p.number == *f.port) kept.push_back(std::move(p));
      if (kept.empty()) {
        std::fprintf(stderr, "rdmactl: device %s has no port %d\n", d.name.c_str(), *f.port);
        return false;
      }
      d.ports = std::move(kept);
    }
  }
  return true;
}

bool ParseFilterArgs(const std::string& command, const std::vector<std::string>& args, InventoryFilter* f) {
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "-d" || a == "--device" || a == "-p" || a == "--port") && i + 1 < args.size()) {
      positional.resize(std::max<size_t>(positional.size(), (a == "-d" || a == "--device") ? 1 : 2));
      positional[(a == "-d" || a == "--device") ? 0 : 1] = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "rdmactl %s: unknown option %s (see rdmactl %s --help)\n", command.c_str(), a.c_str(),
                   command.c_str());
      return false;
    } else if (positional.size() < 2) {
      positional.push_back(a);
    } else {
      std::fprintf(stderr, "rdmactl %s: unexpected argument %s\n", command.c_str(), a.c_str());
      return false;
    }
  }
  if (!positional.empty() && !positional[0].empty()) f->device = positional[0];
  if (positional.size() > 1 && !positional[1].empty()) {
    auto n = ParseU32(positional[1]);
    if (!n || *n == 0 || *n > 255) {
      std::fprintf(stderr, "rdmactl %s: bad port number \"%s\"\n", command.c_str(), positional[1].c_str());
      return false;
    }
    f->port = static_cast<int>(*n);
  }
  return true;
}

}  // namespace rdmascope::cli
