// Node inventory: every RDMA device and port under <sysfs root>/class/infiniband,
// enriched with what only verbs knows.
//
// Contract: ReadInventory never fails. No class/infiniband directory is an
// empty inventory (a normal answer). Each bad file adds one warning and leaves
// that one value absent; every other value is still read. Devices are sorted
// by name, ports by number, GIDs by index; all-zero GIDs are skipped. A
// device's instance identity (Device::instance) is its node GUID and the
// inode of its class/infiniband directory, which changes when the device is
// re-created (agent/node/counters.h); with read_counters, a device
// re-created while its counters were read has none this time (a warning).
#pragma once

#include <string>

#include "agent/node/sysfs_reader.h"
#include "agent/node/verbs_info.h"
#include "common/model.h"

namespace rdmascope {

struct InventoryOptions {
  bool read_counters = false;
  // When set, devices it lists are queried for MTU and caps; a failed query is
  // a warning. nullptr: sysfs only (fixture trees, or no verbs wanted).
  VerbsInfoSource* verbs = nullptr;
  // Non-empty: read only this device (nothing of the others is read or
  // queried); a warning says so when it is not there.
  std::string only_device;  // non-empty: these devices only (comma-separated names)
};

Inventory ReadInventory(const SysfsReader& fs, const InventoryOptions& options);

}  // namespace rdmascope
