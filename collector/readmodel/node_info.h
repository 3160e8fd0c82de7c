// What the read model knows of a node for pinglists and grouping.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

// What a node last told about itself, for pinglists.
struct NodeInfo {
  std::string name;
  nlohmann::json labels;  // object of strings
  int64_t last_report_at = 0;
  std::string leaf_switch = "";  // GUID of the switch its first IB port is cabled to; "" unknown
  // Per rail name: GUID of the switch at the other end of that rail's port
  // (the leaf of the node on that rail). A rail missing here falls back to
  // leaf_switch (see NodeGroup in pinglist.h).
  std::map<std::string, std::string> rail_leaves = {};
};

}  // namespace rdmascope::collector
