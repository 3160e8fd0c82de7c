// How rdmactl gets an inventory: sysfs under the global --sysfs-root, plus
// verbs queries only when that root is the live /sys (a fixture tree has no
// verbs devices behind it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/model.h"

namespace rdmascope::cli {

struct InventoryFilter {
  std::optional<std::string> device;
  std::optional<int> port;
};

Inventory LoadInventory(const GlobalOptions& g, bool with_counters);

// Keeps only the named device / port. Returns false (and prints why) when the
// filter names something that does not exist.
bool ApplyFilter(const InventoryFilter& f, Inventory* inv);

// Parses "[DEVICE [PORT]]" positionals and -d/--device, -p/--port. On a bad
// argument prints the error and returns false.
bool ParseFilterArgs(const std::string& command, const std::vector<std::string>& args, InventoryFilter* f);

}  // namespace rdmascope::cli
