// rdmactl devices | ports | counters.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/inventory_source.h"
#include "cli/output_text.h"
#include "common/model_json.h"

namespace rdmascope::cli {
namespace {

constexpr char kNoDevices[] = "no RDMA devices found\n";

struct Command {
  const char* name;
  const char* help;
  bool counters;
  void (*print)(std::FILE*, const Inventory&);
  nlohmann::json (*to_json)(const Inventory&);
};

nlohmann::json DevicesJson(const Inventory& inv) {
  nlohmann::json j = InventoryToJson(inv);
  for (auto& d : j["devices"]) {
    d["port_count"] = d["ports"].size();
    d.erase("ports");
  }
  return j;
}

int Run(const Command& c, const GlobalOptions& g, const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(c.help, stdout);
    return 0;
  }
  InventoryFilter filter;
  if (!ParseFilterArgs(c.name, args, &filter)) return 2;
  Inventory inv = LoadInventory(g, c.counters);
  PrintWarnings(stderr, inv);
  if (inv.devices.empty() && !filter.device) {
    if (g.json)
      std::printf("%s\n", c.to_json(inv).dump(2).c_str());
    else
      std::fputs(kNoDevices, stdout);
    return 0;
  }
  if (!ApplyFilter(filter, &inv)) return 2;
  if (g.json)
    std::printf("%s\n", c.to_json(inv).dump(2).c_str());
  else
    c.print(stdout, inv);
  return 0;
}

const Command kDevices{"devices",
                       "usage: rdmactl [--sysfs-root DIR] [--json] devices [DEVICE]\n\n"
                       "Lists RDMA devices: type, node type, firmware, board id, node and system image GUIDs,\n"
                       "PCI address, number of ports, and verbs capabilities when the device can be opened.\n",
                       false, PrintDevices, DevicesJson};
const Command kPorts{"ports",
                     "usage: rdmactl [--sysfs-root DIR] [--json] ports [DEVICE [PORT]]\n\n"
                     "Shows every port: state and physical state, rate, LID, LMC, SM LID and SL, capability mask,\n"
                     "link layer, active and max MTU (from verbs), the GID table with types and netdevs.\n"
                     "All-zero GIDs are not shown. Values that cannot be read print as n/a with a warning.\n",
                     false, PrintPorts, InventoryToJson};
const Command kCounters{"counters",
                        "usage: rdmactl [--sysfs-root DIR] [--json] counters [DEVICE [PORT]]\n\n"
                        "Prints ports/N/counters and ports/N/hw_counters. A counter the port does not expose\n"
                        "is absent (n/a / null), never 0; \"N/A (no PMA)\" is absent. port_xmit_data and\n"
                        "port_rcv_data count 4-byte words and are shown as *_bytes.\n",
                        true, PrintCounters, InventoryCountersToJson};

}  // namespace

int RunDevices(const GlobalOptions& g, const std::vector<std::string>& args) { return Run(kDevices, g, args); }
int RunPorts(const GlobalOptions& g, const std::vector<std::string>& args) { return Run(kPorts, g, args); }
int RunCounters(const GlobalOptions& g, const std::vector<std::string>& args) { return Run(kCounters, g, args); }

}  // namespace rdmascope::cli
