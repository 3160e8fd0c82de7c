#include "agent/daemon_inventory.h"

#include "agent/attr_reader.h"
#include "agent/counters.h"
#include "agent/inventory.h"

namespace rdmascope::agent {

Inventory ReadFullInventory(const SysfsReader& fs, VerbsInfoSource* verbs) {
  InventoryOptions o;
  o.read_counters = false;
  o.verbs = verbs;
  return ReadInventory(fs, o);
}

Inventory WithFreshCounters(const SysfsReader& fs, const Inventory& base) {
  Inventory inv = base;
  AttrReader attrs(fs, &inv.warnings);
  for (Device& d : inv.devices) {
    for (Port& p : d.ports) {
      p.counters.clear();
      p.hw_counters.clear();
      ReadPortCounters(attrs, "class/infiniband/" + d.name + "/ports/" + std::to_string(p.number), &p);
    }
  }
  return inv;
}

void KeepOnlyDevice(Inventory* inv, const std::string& name) {
  std::vector<Device> kept;
  for (Device& d : inv->devices)
    if (d.name == name) kept.push_back(std::move(d));
  if (kept.empty()) inv->warnings.push_back("device " + name + " (--device) not found: no device reported");
  inv->devices = std::move(kept);
}

}  // namespace rdmascope::agent
