#include "tests/labcheck/devinfo_parse.h"

#include <cstdlib>
#include <sstream>

namespace rdmascope::labcheck {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "PORT_ACTIVE (4)" -> 4; "1024 (3)" -> first number when want_first.
std::optional<int> Number(const std::string& v, bool want_first) {
  if (want_first) {
    char* end = nullptr;
    long n = std::strtol(v.c_str(), &end, 0);
    if (end == v.c_str()) return std::nullopt;
    return static_cast<int>(n);
  }
  size_t open = v.rfind('('), close = v.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  return std::atoi(v.substr(open + 1, close - open - 1).c_str());
}

}  // namespace

std::vector<DevinfoDevice> ParseDevinfo(const std::string& text) {
  std::vector<DevinfoDevice> devices;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon));
    std::string value = Trim(line.substr(colon + 1));
    if (key == "hca_id") {
      devices.push_back({value, std::nullopt, {}});
      continue;
    }
    if (devices.empty()) continue;
    DevinfoDevice& d = devices.back();
    if (key == "node_guid") {
      d.node_guid = value;
    } else if (key == "port") {
      d.ports.push_back({});
      d.ports.back().number = std::atoi(value.c_str());
    } else if (!d.ports.empty()) {
      DevinfoPort& p = d.ports.back();
      if (key == "state") p.state = Number(value, false);
      else if (key == "phys_state") p.phys_state = Number(value, false);
      else if (key == "active_mtu") p.active_mtu = Number(value, true);
      else if (key == "max_mtu") p.max_mtu = Number(value, true);
      else if (key == "link_layer") p.link_layer = value;
      else if (key == "port_lid") p.lid = Number(value, true);
      else if (key.rfind("GID[", 0) == 0) {
        DevinfoGid g;
        g.index = std::atoi(key.substr(4).c_str());
        // The GID itself may contain ':' — take the text after "GID[ n]:".
        std::string rest = Trim(line.substr(line.find("]:") + 2));
        size_t comma = rest.find(',');
        g.gid = Trim(rest.substr(0, comma));
        if (comma != std::string::npos) g.type = Trim(rest.substr(comma + 1));
        p.gids.push_back(g);
      }
    }
  }
  return devices;
}

}  // namespace rdmascope::labcheck
