#include "bench/sim_reports.h"

#include <cinttypes>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/model.h"
#include "common/model_json.h"
#include "fabric/fabric_json.h"

namespace rdmascope::bench {

using nlohmann::json;

namespace {

// "0002:c903:0001:2345" as sysfs writes a node GUID.
std::string SysfsGuid(uint64_t g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%04x:%04x:%04x", static_cast<unsigned>(g >> 48) & 0xffff,
                static_cast<unsigned>(g >> 32) & 0xffff, static_cast<unsigned>(g >> 16) & 0xffff,
                static_cast<unsigned>(g) & 0xffff);
  return buf;
}

Device DeviceOf(const SimNic& nic, const NicCounters& c, bool up) {
  Device d;
  d.name = nic.device;
  d.node_guid = SysfsGuid(nic.guid);
  d.sys_image_guid = SysfsGuid(nic.guid);
  d.fw_ver = "28.39.1002";
  d.board_id = "MT_0000000838";
  d.hca_type = "MT4129";
  d.node_type = NumberedName{1, "CA"};
  Port p;
  p.number = nic.port;
  p.state = up ? NumberedName{4, "ACTIVE"} : NumberedName{1, "DOWN"};
  p.phys_state = up ? NumberedName{5, "LinkUp"} : NumberedName{2, "Polling"};
  p.lid = nic.lid;
  p.sm_lid = 1;
  p.lid_mask_count = 0;
  p.link_layer = "InfiniBand";
  p.active_mtu = 4096;
  p.max_mtu = 4096;
  Rate r;
  r.gbps = up ? 200.0 : 10.0;
  r.width = "4X";
  r.speed = up ? "HDR" : "SDR";
  r.text = up ? "200 Gb/sec (4X HDR)" : "10 Gb/sec (4X SDR)";
  p.rate = r;
  p.gids.push_back(Gid{0, "fe80:0000:0000:0000:" + SysfsGuid(nic.guid), std::nullopt, std::nullopt});
  p.counters = {{"symbol_error", c.symbol_error},
                {"link_error_recovery", 0},
                {"link_downed", c.link_downed},
                {"port_rcv_errors", c.port_rcv_errors},
                {"port_rcv_remote_physical_errors", 0},
                {"port_xmit_discards", c.port_xmit_discards},
                {"port_xmit_data_bytes", c.xmit_bytes},
                {"port_rcv_data_bytes", c.rcv_bytes},
                {"port_xmit_packets", c.xmit_packets},
                {"port_rcv_packets", c.rcv_packets}};
  p.hw_counters = {{"local_ack_timeout_err", c.local_ack_timeout_err},
                   {"rnr_nak_retry_err", c.rnr_nak_retry_err},
                   {"out_of_sequence", c.out_of_sequence},
                   {"packet_seq_err", 0},
                   {"duplicate_request", 0}};
  d.ports.push_back(std::move(p));
  return d;
}

}  // namespace

int SweeperOf(const SimWorld& world, int plane, int64_t t) {
  const SimTopology& topo = world.topo();
  const size_t n = topo.hosts.size();
  for (size_t k = 0; k < n; ++k) {
    const size_t h = (static_cast<size_t>(plane) + k) % n;
    if (world.HostDead(h, t)) continue;
    for (size_t i = 0; i < topo.hosts[h].nics.size(); ++i)
      if (topo.hosts[h].nics[i].plane == plane && !world.NicDown(h, static_cast<int>(i), t)) return static_cast<int>(h);
  }
  return -1;
}

std::string BuildHostReport(SimWorld& world, size_t host, int64_t t0, int64_t t1, uint64_t interval_index,
                            const std::vector<RailTargets>& targets_by_rail, int sweep_plane, int interval_s,
                            bool with_neighbours, bool group_label) {
  const SimTopology& topo = world.topo();
  const SimHost& h = topo.hosts[host];
  std::vector<bool> up(h.nics.size());
  for (size_t i = 0; i < h.nics.size(); ++i) up[i] = !world.NicDown(host, static_cast<int>(i), t1);
  std::string rails_label;
  json rails = json::array(), devices = json::array(), neighbours = json::array();
  for (size_t i = 0; i < h.nics.size(); ++i) {
    const SimNic& nic = h.nics[i];
    rails_label += (i ? "," : "") + nic.rail;
    rails.push_back({{"name", nic.rail}, {"device", nic.device}, {"port", nic.port}, {"state", up[i] ? "ACTIVE" : "DOWN"}});
    const Device d = DeviceOf(nic, world.Counters(host, static_cast<int>(i)), up[i]);
    json dev = DeviceToJson(d);
    dev["ports"][0]["counters"] = CountersToJson(d.ports[0].counters);
    dev["ports"][0]["hw_counters"] = CountersToJson(d.ports[0].hw_counters);
    devices.push_back(std::move(dev));
    if (!up[i] || !with_neighbours) continue;
    const fabric::FabricNode* leaf = world.Node(nic.plane, nic.leaf_guid);
    json n = {{"device", nic.device},
              {"local_port", nic.port},
              {"guid", fabric::GuidText(nic.leaf_guid)},
              {"type", "Switch"},
              {"description", leaf ? leaf->description : ""},
              {"lid", leaf ? leaf->lid : 0},
              {"port", fabric::PortToJson(world.LeafPort(host, static_cast<int>(i), t1), true)}};
    neighbours.push_back(std::move(n));
  }
  char id[200];
  std::snprintf(id, sizeof id, "%s-%" PRId64 "-5133d00d-%06" PRIu64, h.name.c_str(), t1, interval_index);
  json head = {{"schema_version", 1},
               {"report_id", id},
               {"node", h.name},
               {"agent_version", "0.1.0-sim"},
               {"generated_at_ms", t1},
               {"interval_s", interval_s},
               {"boot_id", "00000000-0000-4000-8000-" + h.name.substr(h.name.size() > 12 ? h.name.size() - 12 : 0)},
               {"labels", {{"control_port", "18610"}, {"rails", rails_label}}},
               {"inventory", {{"devices", std::move(devices)}, {"warnings", json::array()}}},
               {"rails", std::move(rails)},
               {"neighbours", std::move(neighbours)}};
  if (group_label && !h.nics.empty()) head["labels"]["group"] = "leaf:" + fabric::GuidText(h.nics[0].leaf_guid);
  std::string text = head.dump();
  text.pop_back();  // the closing brace: probes and the sweep follow
  text += ",\"probes\":[";
  bool first = true;
  for (size_t i = 0; i < h.nics.size() && i < targets_by_rail.size(); ++i) {
    for (size_t dst : targets_by_rail[i]) {
      // The peer's NIC on the same rail.
      int dst_nic = -1;
      const SimHost& peer = topo.hosts[dst];
      for (size_t k = 0; k < peer.nics.size(); ++k)
        if (peer.nics[k].rail == h.nics[i].rail) dst_nic = static_cast<int>(k);
      if (dst_nic < 0 || dst == host) continue;
      for (const char* transport : {"ud", "rc"}) {
        if (!first) text += ',';
        first = false;
        text += up[i] ? world.ProbeEntry(host, static_cast<int>(i), dst, dst_nic, transport, t0, t1, interval_index)
                      : world.NotRunEntry(host, static_cast<int>(i), dst, dst_nic, transport, t0, t1);
      }
    }
  }
  text += ']';
  if (sweep_plane >= 0) {
    int from = -1;
    for (size_t i = 0; i < h.nics.size(); ++i)
      if (h.nics[i].plane == sweep_plane) from = static_cast<int>(i);
    std::string sweep = fabric::FabricJsonText(world.Sweep(sweep_plane, t1), true);
    sweep.pop_back();
    text += ",\"fabric\":" + sweep + ",\"from\":{\"device\":\"" + (from >= 0 ? h.nics[from].device : "") +
            "\",\"port\":" + std::to_string(from >= 0 ? h.nics[from].port : 1) + "}}";
  }
  text += '}';
  return text;
}

}  // namespace rdmascope::bench
