// Human-readable output of the inventory, laid out the way operators know
// from the standard InfiniBand status tools: one block per device, indented
// port blocks, "Key: value" lines. Absent values print as "n/a".
#pragma once

#include <cstdio>

#include "common/model.h"

namespace rdmascope::cli {

void PrintDevices(std::FILE* out, const Inventory& inv);
void PrintPorts(std::FILE* out, const Inventory& inv);
void PrintCounters(std::FILE* out, const Inventory& inv);
// One "warning: ..." line per inventory warning.
void PrintWarnings(std::FILE* out, const Inventory& inv);

}  // namespace rdmascope::cli
