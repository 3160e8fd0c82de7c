#include "agent/daemon/daemon_inventory.h"

#include "agent/node/attr_reader.h"
#include "agent/node/counters.h"
#include "agent/node/inventory.h"
#include "agent/node/sysfs_parse.h"

namespace rdmascope::agent {

Inventory ReadFullInventory(const SysfsReader& fs, VerbsInfoSource* verbs, const std::string& only_device) {
  InventoryOptions o;
  o.read_counters = false;
  o.verbs = verbs;
  o.only_device = only_device;
  return ReadInventory(fs, o);
}

Inventory WithFreshCounters(const SysfsReader& fs, const Inventory& base) {
  Inventory inv = base;
  AttrReader attrs(fs, &inv.warnings);
  for (Device& d : inv.devices) {
    d.instance = ReadDeviceInstance(fs, d);
    for (Port& p : d.ports) {
      p.counters.clear();
      p.hw_counters.clear();
      const std::string dir = "class/infiniband/" + d.name + "/ports/" + std::to_string(p.number);
      // State and rate every report: a link flap shorter than the inventory interval still shows.
      p.state = attrs.Parsed<NumberedName>(dir + "/state", ParseNumberedName, "\"<number>: <name>\"");
      p.phys_state = attrs.Parsed<NumberedName>(dir + "/phys_state", ParseNumberedName, "\"<number>: <name>\"");
      p.rate = attrs.Parsed<Rate>(dir + "/rate", ParseRate, "\"<n> Gb/sec (<w>X <speed>)\"");
      ReadPortCounters(attrs, dir, &p);
    }
    KeepCountersOfOneInstance(attrs, &d);
  }
  return inv;
}

}  // namespace rdmascope::agent
