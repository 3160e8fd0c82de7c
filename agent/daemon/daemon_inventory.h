// Inventory reads of the agent daemon: the full inventory (rare: it opens
// the verbs devices) and fresh counters on top of it (every report).
//
// Contract: ReadFullInventory is ReadInventory without counters, enriched by
// `verbs` when it is not null. WithFreshCounters returns a copy of `base`
// whose ports' counters and hw_counters are read now from sysfs, with each
// device's instance identity read now too (a device re-created since the
// full read is a new instance at the next report, not an inventory interval
// later; one re-created while its counters were read has none this time:
// agent/node/counters.h); warnings are base's plus one per counter file that
// could not be read or parsed. Neither fails: problems are warnings, as in
// ReadInventory.
#pragma once

#include <string>

#include "agent/node/sysfs_reader.h"
#include "agent/node/verbs_info.h"
#include "common/model.h"

namespace rdmascope::agent {

// only_device non-empty: that device alone (InventoryOptions::only_device).
Inventory ReadFullInventory(const SysfsReader& fs, VerbsInfoSource* verbs, const std::string& only_device = "");
Inventory WithFreshCounters(const SysfsReader& fs, const Inventory& base);

}  // namespace rdmascope::agent
