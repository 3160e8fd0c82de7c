#include "common/model_json.h"

namespace rdmascope {
namespace {

template <typename T>
nlohmann::json Opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

void to_json(nlohmann::json& j, const NumberedName& v) { j = {{"number", v.number}, {"name", v.name}}; }

void to_json(nlohmann::json& j, const Gid& v) {
  j = {{"index", v.index}, {"gid", v.gid}, {"type", Opt(v.type)}, {"ndev", Opt(v.ndev)}};
}

void to_json(nlohmann::json& j, const Rate& v) {
  j = {{"gbps", Opt(v.gbps)}, {"width", Opt(v.width)}, {"speed", Opt(v.speed)}, {"text", v.text}};
}

void to_json(nlohmann::json& j, const VerbsDeviceCaps& v) {
  j = {{"fw_ver", v.fw_ver},
       {"vendor_id", v.vendor_id},
       {"vendor_part_id", v.vendor_part_id},
       {"hw_ver", v.hw_ver},
       {"phys_port_cnt", v.phys_port_cnt},
       {"max_qp", v.max_qp},
       {"max_qp_wr", v.max_qp_wr},
       {"max_cq", v.max_cq},
       {"max_cqe", v.max_cqe},
       {"max_mr", v.max_mr},
       {"max_mr_size", v.max_mr_size},
       {"max_pd", v.max_pd},
       {"max_sge", v.max_sge},
       {"max_ah", v.max_ah},
       {"completion_timestamps", v.completion_timestamps},
       {"hca_core_clock_khz", v.hca_core_clock_khz}};
}

nlohmann::json CountersToJson(const CounterMap& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : m) j[name] = Opt(value);
  return j;
}

nlohmann::json PortToJson(const Port& p) {
  return {{"port", p.number},
          {"state", Opt(p.state)},
          {"phys_state", Opt(p.phys_state)},
          {"lid", Opt(p.lid)},
          {"sm_lid", Opt(p.sm_lid)},
          {"lid_mask_count", Opt(p.lid_mask_count)},
          {"sm_sl", Opt(p.sm_sl)},
          {"rate", Opt(p.rate)},
          {"link_layer", Opt(p.link_layer)},
          {"cap_mask", Opt(p.cap_mask)},
          {"active_mtu", Opt(p.active_mtu)},
          {"max_mtu", Opt(p.max_mtu)},
          {"gids", p.gids},
          {"netdevs", p.netdevs}};
}

nlohmann::json PortCountersToJson(const Port& p) {
  return {{"port", p.number}, {"counters", CountersToJson(p.counters)}, {"hw_counters", CountersToJson(p.hw_counters)}};
}

nlohmann::json DeviceToJson(const Device& d) {
  nlohmann::json ports = nlohmann::json::array();
  for (const Port& p : d.ports) ports.push_back(PortToJson(p));
  return {{"name", d.name},
          {"node_guid", Opt(d.node_guid)},
          {"sys_image_guid", Opt(d.sys_image_guid)},
          {"fw_ver", Opt(d.fw_ver)},
          {"board_id", Opt(d.board_id)},
          {"hca_type", Opt(d.hca_type)},
          {"node_type", Opt(d.node_type)},
          {"pci_address", Opt(d.pci_address)},
          {"pcie", {{"speed_gts", Opt(d.pcie_speed_gts)},
                    {"width", Opt(d.pcie_width)},
                    {"max_speed_gts", Opt(d.pcie_max_speed_gts)},
                    {"max_width", Opt(d.pcie_max_width)}}},
          {"numa_node", Opt(d.numa_node)},
          {"driver", Opt(d.driver)},
          {"verbs", Opt(d.verbs)},
          {"ports", ports}};
}

nlohmann::json InventoryToJson(const Inventory& inv) {
  nlohmann::json devices = nlohmann::json::array();
  for (const Device& d : inv.devices) devices.push_back(DeviceToJson(d));
  return {{"devices", devices}, {"warnings", inv.warnings}};
}

nlohmann::json InventoryCountersToJson(const Inventory& inv) {
  nlohmann::json devices = nlohmann::json::array();
  for (const Device& d : inv.devices) {
    nlohmann::json ports = nlohmann::json::array();
    for (const Port& p : d.ports) ports.push_back(PortCountersToJson(p));
    devices.push_back({{"name", d.name}, {"ports", ports}});
  }
  return {{"devices", devices}, {"warnings", inv.warnings}};
}

}  // namespace rdmascope
