#include "cli/output_text.h"

#include <cinttypes>
#include <string>

namespace rdmascope::cli {
namespace {

template <typename T>
std::string Or(const std::optional<T>& v) {
  if (!v) return "n/a";
  if constexpr (std::is_same_v<T, std::string>) return *v;
  else return std::to_string(*v);
}

std::string Name(const std::optional<NumberedName>& v) {
  return v ? v->name + " (" + std::to_string(v->number) + ")" : "n/a";
}

std::string Hex(const std::optional<uint32_t>& v, int width) {
  if (!v) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIx32, width, *v);
  return buf;
}

std::string Mtu(const std::optional<uint32_t>& v) { return v ? std::to_string(*v) : "n/a (no verbs device)"; }

void PrintDeviceHeader(std::FILE* out, const Device& d) {
  std::fprintf(out, "CA '%s'\n", d.name.c_str());
  std::fprintf(out, "\tCA type: %s\n", Or(d.hca_type).c_str());
  std::fprintf(out, "\tNode type: %s\n", Name(d.node_type).c_str());
  std::fprintf(out, "\tNumber of ports: %zu\n", d.ports.size());
  std::fprintf(out, "\tFirmware version: %s\n", Or(d.fw_ver).c_str());
  std::fprintf(out, "\tBoard id: %s\n", Or(d.board_id).c_str());
  std::fprintf(out, "\tNode GUID: %s\n", Or(d.node_guid).c_str());
  std::fprintf(out, "\tSystem image GUID: %s\n", Or(d.sys_image_guid).c_str());
  std::fprintf(out, "\tPCI address: %s\n", Or(d.pci_address).c_str());
}

void PrintCounterMap(std::FILE* out, const char* title, const CounterMap& m) {
  if (m.empty()) return;
  std::fprintf(out, "\t\t%s:\n", title);
  for (const auto& [name, value] : m)
    std::fprintf(out, "\t\t\t%-36s %s\n", (name + ":").c_str(), value ? std::to_string(*value).c_str() : "n/a");
}

}  // namespace

void PrintDevices(std::FILE* out, const Inventory& inv) {
  for (const Device& d : inv.devices) {
    PrintDeviceHeader(out, d);
    if (d.verbs) {
      std::fprintf(out, "\tHardware version: %u\n", d.verbs->hw_ver);
      std::fprintf(out, "\tmax_qp: %d  max_cq: %d  max_mr: %d  max_pd: %d\n", d.verbs->max_qp, d.verbs->max_cq,
                   d.verbs->max_mr, d.verbs->max_pd);
      std::fprintf(out, "\tCompletion timestamps: %s\n", d.verbs->completion_timestamps ? "yes" : "no");
    }
  }
}

void PrintPorts(std::FILE* out, const Inventory& inv) {
  for (const Device& d : inv.devices) {
    PrintDeviceHeader(out, d);
    for (const Port& p : d.ports) {
      std::fprintf(out, "\tPort %d:\n", p.number);
      std::fprintf(out, "\t\tState: %s\n", Name(p.state).c_str());
      std::fprintf(out, "\t\tPhysical state: %s\n", Name(p.phys_state).c_str());
      std::fprintf(out, "\t\tRate: %s\n", p.rate ? p.rate->text.c_str() : "n/a");
      std::fprintf(out, "\t\tBase lid: %s\n", Or(p.lid).c_str());
      std::fprintf(out, "\t\tLMC: %s\n", Or(p.lid_mask_count).c_str());
      std::fprintf(out, "\t\tSM lid: %s\n", Or(p.sm_lid).c_str());
      std::fprintf(out, "\t\tSM SL: %s\n", Or(p.sm_sl).c_str());
      std::fprintf(out, "\t\tCapability mask: %s\n", Hex(p.cap_mask, 8).c_str());
      std::fprintf(out, "\t\tLink layer: %s\n", Or(p.link_layer).c_str());
      std::fprintf(out, "\t\tActive MTU: %s\n", Mtu(p.active_mtu).c_str());
      std::fprintf(out, "\t\tMax MTU: %s\n", Mtu(p.max_mtu).c_str());
      std::string nd;
      for (const std::string& n : p.netdevs) nd += (nd.empty() ? "" : ", ") + n;
      std::fprintf(out, "\t\tNetdevs: %s\n", nd.empty() ? "none" : nd.c_str());
      for (const Gid& g : p.gids) {
        std::fprintf(out, "\t\tGID[%3d]: %s, %s%s%s\n", g.index, g.gid.c_str(), Or(g.type).c_str(),
                     g.ndev ? ", " : "", g.ndev ? g.ndev->c_str() : "");
      }
    }
  }
}

void PrintCounters(std::FILE* out, const Inventory& inv) {
  for (const Device& d : inv.devices) {
    std::fprintf(out, "CA '%s'\n", d.name.c_str());
    for (const Port& p : d.ports) {
      std::fprintf(out, "\tPort %d:\n", p.number);
      if (p.counters.empty() && p.hw_counters.empty()) std::fprintf(out, "\t\tno counters exposed\n");
      PrintCounterMap(out, "counters", p.counters);
      PrintCounterMap(out, "hw_counters", p.hw_counters);
    }
  }
}

void PrintWarnings(std::FILE* out, const Inventory& inv) {
  for (const std::string& w : inv.warnings) std::fprintf(out, "warning: %s\n", w.c_str());
}

}  // namespace rdmascope::cli
