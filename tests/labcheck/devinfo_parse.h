// Parser for the text `ibv_devinfo -v` prints, reduced to the fields the lab
// cross-checks against rdmactl: per device the node GUID, per port the state,
// physical state, MTUs, link layer, LID and GID table.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmascope::labcheck {

struct DevinfoGid {
  int index = 0;
  std::string gid;                  // as printed (full hex or compressed IPv6)
  std::optional<std::string> type;  // "RoCE v1", "RoCE v2"; absent on IB
};

struct DevinfoPort {
  int number = 0;
  std::optional<int> state;       // PORT_ACTIVE (4) -> 4
  std::optional<int> phys_state;  // LINK_UP (5) -> 5
  std::optional<int> active_mtu;  // 1024 (3) -> 1024
  std::optional<int> max_mtu;
  std::optional<std::string> link_layer;
  std::optional<int> lid;
  std::vector<DevinfoGid> gids;
};

struct DevinfoDevice {
  std::string name;
  std::optional<std::string> node_guid;
  std::vector<DevinfoPort> ports;
};

// Unknown lines are ignored; a field whose value cannot be parsed stays absent.
std::vector<DevinfoDevice> ParseDevinfo(const std::string& text);

}  // namespace rdmascope::labcheck
