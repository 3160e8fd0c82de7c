#include "agent/node/inventory.h"

#include <cstdlib>

#include <algorithm>

#include "agent/node/attr_reader.h"
#include "agent/node/counters.h"
#include "agent/node/sysfs_parse.h"

namespace rdmascope {
namespace {

constexpr char kClassDir[] = "class/infiniband";

std::optional<std::string> AsString(const std::string& s) { return s; }

void AddUnique(std::vector<std::string>* v, const std::string& s) {
  if (std::find(v->begin(), v->end(), s) == v->end()) v->push_back(s);
}

void ReadGids(AttrReader& attrs, const std::string& port_dir, Port* port) {
  std::vector<int> indexes;
  for (const std::string& name : attrs.List(port_dir + "/gids")) {
    auto idx = ParseU32(name);
    if (idx && name.find_first_not_of("0123456789") == std::string::npos) indexes.push_back(static_cast<int>(*idx));
  }
  std::sort(indexes.begin(), indexes.end());
  for (int i : indexes) {
    const std::string n = std::to_string(i);
    auto text = attrs.Text(port_dir + "/gids/" + n);
    if (!text || IsZeroGid(*text)) continue;
    if (!IsWellFormedGid(*text)) {
      attrs.Warn(port_dir + "/gids/" + n, "not a GID: \"" + text->substr(0, 40) + "\"");
      continue;
    }
    Gid gid;
    gid.index = i;
    gid.gid = *text;
    gid.type = attrs.Text(port_dir + "/gid_attrs/types/" + n);
    gid.ndev = attrs.Text(port_dir + "/gid_attrs/ndevs/" + n, /*empty_is_absent=*/true);
    port->gids.push_back(std::move(gid));
  }
}

// The port's netdevs: from its GIDs (RoCE); else the PCI function's net/*
// interfaces whose dev_port is port-1; else the device's `parent` (rxe).
void ReadNetdevs(AttrReader& attrs, const std::string& dev_dir, Port* port) {
  for (const Gid& g : port->gids)
    if (g.ndev) AddUnique(&port->netdevs, *g.ndev);
  if (!port->netdevs.empty()) return;
  for (const std::string& ifname : attrs.List(dev_dir + "/device/net")) {
    auto dev_port = attrs.Parsed<uint32_t>(dev_dir + "/device/net/" + ifname + "/dev_port", ParseU32, "a number");
    if (dev_port && static_cast<int>(*dev_port) == port->number - 1) AddUnique(&port->netdevs, ifname);
  }
  if (!port->netdevs.empty()) return;
  if (auto parent = attrs.Text(dev_dir + "/parent", /*empty_is_absent=*/true)) AddUnique(&port->netdevs, *parent);
}

Port ReadPort(AttrReader& attrs, const std::string& dev_dir, int number, const InventoryOptions& options) {
  const std::string dir = dev_dir + "/ports/" + std::to_string(number);
  Port p;
  p.number = number;
  p.state = attrs.Parsed<NumberedName>(dir + "/state", ParseNumberedName, "\"<number>: <name>\"");
  p.phys_state = attrs.Parsed<NumberedName>(dir + "/phys_state", ParseNumberedName, "\"<number>: <name>\"");
  p.lid = attrs.Parsed<uint32_t>(dir + "/lid", ParseU32, "a LID");
  p.sm_lid = attrs.Parsed<uint32_t>(dir + "/sm_lid", ParseU32, "a LID");
  p.lid_mask_count = attrs.Parsed<uint32_t>(dir + "/lid_mask_count", ParseU32, "a number");
  p.sm_sl = attrs.Parsed<uint32_t>(dir + "/sm_sl", ParseU32, "a number");
  p.rate = attrs.Parsed<Rate>(dir + "/rate", ParseRate, "\"<n> Gb/sec (<w>X <speed>)\"");
  p.link_layer = attrs.Text(dir + "/link_layer");
  p.cap_mask = attrs.Parsed<uint32_t>(dir + "/cap_mask", ParseU32, "a hex mask");
  ReadGids(attrs, dir, &p);
  ReadNetdevs(attrs, dev_dir, &p);
  if (options.read_counters) ReadPortCounters(attrs, dir, &p);
  return p;
}

Device ReadDevice(AttrReader& attrs, const std::string& name, const InventoryOptions& options) {
  const std::string dir = std::string(kClassDir) + "/" + name;
  Device d;
  d.name = name;
  auto guid = [](const std::string& t) { return IsWellFormedGid("0000:0000:0000:0000:" + t) ? AsString(t) : std::nullopt; };
  d.node_guid = attrs.Parsed<std::string>(dir + "/node_guid", guid, "a GUID");
  d.sys_image_guid = attrs.Parsed<std::string>(dir + "/sys_image_guid", guid, "a GUID");
  d.fw_ver = attrs.Text(dir + "/fw_ver", /*empty_is_absent=*/true);
  d.board_id = attrs.Text(dir + "/board_id", /*empty_is_absent=*/true);
  d.hca_type = attrs.Text(dir + "/hca_type", /*empty_is_absent=*/true);
  d.node_type = attrs.Parsed<NumberedName>(dir + "/node_type", ParseNumberedName, "\"<number>: <name>\"");
  d.instance = ReadDeviceInstance(attrs.fs(), d);
  if (auto link = attrs.fs().ReadLink(dir + "/device")) {
    size_t slash = link->find_last_of('/');
    d.pci_address = slash == std::string::npos ? *link : link->substr(slash + 1);
    // "8.0 GT/s PCIe" -> 8.0; "Unknown" (or a virtual device) -> absent.
    auto gts = [](const std::string& t) -> std::optional<double> {
      char* end = nullptr;
      double v = std::strtod(t.c_str(), &end);
      if (end == t.c_str() || v <= 0 || std::string(end).find("GT/s") == std::string::npos) return std::nullopt;
      return v;
    };
    auto lanes = [](const std::string& t) -> std::optional<uint32_t> {
      auto n = ParseU32(t);
      return n && *n > 0 && *n <= 64 ? n : std::nullopt;
    };
    auto opt_text = [&](const std::string& f) { return attrs.Text(dir + "/device/" + f, /*empty_is_absent=*/true); };
    if (auto t = opt_text("current_link_speed")) d.pcie_speed_gts = gts(*t);
    if (auto t = opt_text("max_link_speed")) d.pcie_max_speed_gts = gts(*t);
    if (auto t = opt_text("current_link_width")) d.pcie_width = lanes(*t);
    if (auto t = opt_text("max_link_width")) d.pcie_max_width = lanes(*t);
    if (auto t = opt_text("numa_node")) {
      char* end = nullptr;
      long n = std::strtol(t->c_str(), &end, 10);
      if (end != t->c_str() && n >= -1 && n < 4096) d.numa_node = int(n);
    }
    if (auto drv = attrs.fs().ReadLink(dir + "/device/driver")) {
      size_t s2 = drv->find_last_of('/');
      d.driver = s2 == std::string::npos ? *drv : drv->substr(s2 + 1);
    }
  }
  std::vector<int> ports;
  for (const std::string& entry : attrs.List(dir + "/ports")) {
    auto n = ParseU32(entry);
    if (n && *n > 0 && *n < 256 && entry.find_first_not_of("0123456789") == std::string::npos)
      ports.push_back(static_cast<int>(*n));
    else
      attrs.Warn(dir + "/ports/" + entry, "not a port number; ignored");
  }
  std::sort(ports.begin(), ports.end());
  for (int p : ports) d.ports.push_back(ReadPort(attrs, dir, p, options));
  if (options.read_counters) KeepCountersOfOneInstance(attrs, &d);
  return d;
}

void EnrichFromVerbs(VerbsInfoSource& verbs, Inventory* inv) {
  std::vector<std::string> known = verbs.ListDevices();
  for (Device& d : inv->devices) {
    if (std::find(known.begin(), known.end(), d.name) == known.end()) continue;
    auto info = verbs.Query(d.name);
    if (!info.ok()) {
      inv->warnings.push_back(info.status().message());
      continue;
    }
    d.verbs = info->caps;
    for (Port& p : d.ports) {
      for (const VerbsPortInfo& vp : info->ports) {
        if (vp.port != p.number) continue;
        if (vp.active_mtu) p.active_mtu = vp.active_mtu;
        if (vp.max_mtu) p.max_mtu = vp.max_mtu;
      }
    }
  }
}

}  // namespace

Inventory ReadInventory(const SysfsReader& fs, const InventoryOptions& options) {
  Inventory inv;
  AttrReader attrs(fs, &inv.warnings);
  for (const std::string& name : attrs.List(kClassDir))
    if (options.only_device.empty() || ("," + options.only_device + ",").find("," + name + ",") != std::string::npos)
      inv.devices.push_back(ReadDevice(attrs, name, options));
  if (!options.only_device.empty() && inv.devices.empty())
    inv.warnings.push_back("device " + options.only_device + " (--device) not found: no device reported");
  if (options.verbs != nullptr) EnrichFromVerbs(*options.verbs, &inv);
  return inv;
}

}  // namespace rdmascope
