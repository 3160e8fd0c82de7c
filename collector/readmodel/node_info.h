// What the read model knows of a node for pinglists and grouping.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

// What a node last told about itself, for pinglists.
struct NodeInfo {
  std::string name;
  nlohmann::json labels;  // object of strings
  int64_t last_report_at = 0;
  std::string leaf_switch = "";  // GUID of the switch its first IB port is cabled to; "" unknown
};

}  // namespace rdmascope::collector
