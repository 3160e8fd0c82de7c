// Port counters from ports/N/counters/* and ports/N/hw_counters/*, and the
// device instance they were read under.
//
// Contract: every regular file in those directories becomes one entry. A file
// holding "N/A (no PMA)" is present-but-absent (nullopt, no warning); garbage
// is nullopt with a warning naming the file. port_xmit_data and port_rcv_data
// count 4-byte words and are stored as port_xmit_data_bytes and
// port_rcv_data_bytes. hw_counters/lifespan is a setting, not a counter: skipped.
#pragma once

#include <optional>
#include <string>

#include "agent/node/attr_reader.h"
#include "common/model.h"

namespace rdmascope {

// port_dir: e.g. "class/infiniband/mlx5_0/ports/1".
void ReadPortCounters(AttrReader& attrs, const std::string& port_dir, Port* port);

// The instance identity of device `d` now (Device::instance): its node GUID
// ("" when unknown) and the inode of class/infiniband/NAME, as
// "NODE_GUID@INODE"; nullopt when the directory cannot be stat()ed (the
// device is gone). Counter readings compare it (common/counter_rules.h).
// Why the inode: the GUID alone survives a re-creation (rdma_rxe derives it
// from its netdev's MAC, a reloaded driver reads it from the adapter again),
// and a RoCE netdev's ifindex does not change when rxe is deleted and added
// on it; the directory is the kernfs node the device registers each time,
// and kernfs allocates node ids (the inode numbers sysfs shows) cyclically,
// so a re-created device gets a new one within a boot (fs/kernfs/dir.c; no
// sysfs ABI document names an instance attribute of an ib device). A reboot
// may repeat it: readings pair it with the boot id.
std::optional<std::string> ReadDeviceInstance(const SysfsReader& fs, const Device& d);

// Holds `d`'s counters to one instance: d->instance is the identity read
// before them; read again now, a different one means the device was
// re-created while they were read, so every port's counters and hw_counters
// are cleared (absent this time, not paired with the wrong instance), a
// warning names the device, and false is returned. An identity unknown
// before or now keeps the counters (nothing tells them apart).
bool KeepCountersOfOneInstance(AttrReader& attrs, Device* d);

}  // namespace rdmascope
