// Model of a node's RDMA adapters: devices, ports, GIDs and counters.
//
// Contract: every value read from hardware is optional. An absent value
// (missing file, unreadable file, "N/A (no PMA)") is std::nullopt and is
// written as JSON null; it is never 0 or "". Units: rates in Gb/s, MTU in bytes,
// data counters in bytes (sysfs port_*_data is in 4-byte words; converted on read).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmascope {

// A numbered state as sysfs writes it: "4: ACTIVE" -> {4, "ACTIVE"}.
struct NumberedName {
  int number = 0;
  std::string name;
};

struct Gid {
  int index = 0;
  std::string gid;                  // as sysfs writes it: "fe80:0000:...:0001"
  std::optional<std::string> type;  // "IB/RoCE v1", "RoCE v2"; absent on IB ports
  std::optional<std::string> ndev;  // netdev the GID belongs to (RoCE)
};

struct Rate {
  std::optional<double> gbps;       // 100.0
  std::optional<std::string> width; // "4X"
  std::optional<std::string> speed; // "EDR"
  std::string text;                 // the sysfs text: "100 Gb/sec (4X EDR)"
};

// Counters by sysfs file name. A present key with nullopt: the file exists but
// holds no number ("N/A (no PMA)", garbage). port_xmit_data / port_rcv_data
// are stored as port_xmit_data_bytes / port_rcv_data_bytes (words * 4).
using CounterMap = std::map<std::string, std::optional<uint64_t>>;

struct Port {
  int number = 0;
  std::optional<NumberedName> state;       // "4: ACTIVE"
  std::optional<NumberedName> phys_state;  // "5: LinkUp"
  std::optional<uint32_t> lid;
  std::optional<uint32_t> sm_lid;
  std::optional<uint32_t> lid_mask_count;
  std::optional<uint32_t> sm_sl;
  std::optional<Rate> rate;
  std::optional<std::string> link_layer;   // "InfiniBand", "Ethernet"
  std::optional<uint32_t> cap_mask;
  std::optional<uint32_t> active_mtu;      // bytes; from verbs
  std::optional<uint32_t> max_mtu;         // bytes; from verbs
  std::vector<Gid> gids;                   // all-zero entries skipped
  std::vector<std::string> netdevs;        // associated network interfaces
  CounterMap counters;                     // ports/N/counters/*
  CounterMap hw_counters;                  // ports/N/hw_counters/*
};

// Device capabilities only libibverbs knows.
struct VerbsDeviceCaps {
  std::string fw_ver;
  uint32_t vendor_id = 0;
  uint32_t vendor_part_id = 0;
  uint32_t hw_ver = 0;
  int phys_port_cnt = 0;
  int max_qp = 0;
  int max_qp_wr = 0;
  int max_cq = 0;
  int max_cqe = 0;
  int max_mr = 0;
  uint64_t max_mr_size = 0;
  int max_pd = 0;
  int max_sge = 0;
  int max_ah = 0;
  bool completion_timestamps = false;  // IBV_DEVICE_ATTR_EX completion timestamp mask != 0
  uint64_t hca_core_clock_khz = 0;
};

struct Device {
  std::string name;                         // "mlx5_0"
  std::optional<std::string> node_guid;     // "0002:c903:0001:2345"
  std::optional<std::string> sys_image_guid;
  std::optional<std::string> fw_ver;
  std::optional<std::string> board_id;
  std::optional<std::string> hca_type;
  std::optional<NumberedName> node_type;    // "1: CA"
  std::optional<std::string> pci_address;   // from the device link, e.g. "0000:3b:00.0"
  // PCIe link of the adapter (device/current_link_speed etc.): GT/s and lanes.
  std::optional<double> pcie_speed_gts;
  std::optional<uint32_t> pcie_width;
  std::optional<double> pcie_max_speed_gts;
  std::optional<uint32_t> pcie_max_width;
  std::optional<int> numa_node;             // device/numa_node; -1 = none
  std::optional<std::string> driver;        // basename of the device/driver link, e.g. "mlx5_core"
  // This instance of the device: "NODE_GUID@INODE" (node GUID "" when
  // unreadable), INODE that of class/infiniband/NAME, which the kernel
  // allocates anew when the device is re-created (driver reload, delete and
  // add; see agent/node/counters.h) but may repeat after a reboot, so it is
  // paired with the boot id wherever counters are compared
  // (common/counter_rules.h). Absent when the directory cannot be stat()ed.
  // In the agent's report (the device's "instance"), not in `rdmactl ports`.
  std::optional<std::string> instance;
  std::optional<VerbsDeviceCaps> verbs;     // absent when verbs could not open it
  std::vector<Port> ports;
};

struct Inventory {
  std::vector<Device> devices;
  std::vector<std::string> warnings;  // each names the file or verb that failed
};

}  // namespace rdmascope
