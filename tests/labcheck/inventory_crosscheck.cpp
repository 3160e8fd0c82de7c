#include "tests/labcheck/inventory_crosscheck.h"

#include <arpa/inet.h>

#include <array>
#include <cstring>
#include <map>

namespace rdmascope::labcheck {
namespace {

std::optional<std::array<unsigned char, 16>> GidBytes(const std::string& text) {
  std::array<unsigned char, 16> raw;
  if (inet_pton(AF_INET6, text.c_str(), raw.data()) != 1) return std::nullopt;
  return raw;
}

std::string NormalType(const std::string& t) { return t == "RoCE v1" ? "IB/RoCE v1" : t; }

template <typename A, typename B>
void Compare(std::vector<std::string>* diffs, const std::string& where, const char* field, const A& devinfo,
             const B& ours) {
  if (devinfo == ours) return;
  diffs->push_back(where + " " + field + ": devinfo " + nlohmann::json(devinfo).dump() + ", rdmactl " +
                   nlohmann::json(ours).dump());
}

nlohmann::json Opt(const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
nlohmann::json Opt(const std::optional<std::string>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

void CheckPort(std::vector<std::string>* diffs, const std::string& where, const DevinfoPort& dp,
               const nlohmann::json& jp) {
  auto num = [](const nlohmann::json& j) { return j.is_object() ? j["number"] : nlohmann::json(nullptr); };
  Compare(diffs, where, "state", Opt(dp.state), num(jp.value("state", nlohmann::json())));
  Compare(diffs, where, "phys_state", Opt(dp.phys_state), num(jp.value("phys_state", nlohmann::json())));
  Compare(diffs, where, "active_mtu", Opt(dp.active_mtu), jp.value("active_mtu", nlohmann::json()));
  Compare(diffs, where, "max_mtu", Opt(dp.max_mtu), jp.value("max_mtu", nlohmann::json()));
  Compare(diffs, where, "link_layer", Opt(dp.link_layer), jp.value("link_layer", nlohmann::json()));
  Compare(diffs, where, "lid", Opt(dp.lid), jp.value("lid", nlohmann::json()));

  std::map<int, nlohmann::json> ours;
  for (const auto& g : jp.value("gids", nlohmann::json::array())) ours[g.value("index", -1)] = g;
  for (const DevinfoGid& g : dp.gids) {
    const std::string at = where + " GID[" + std::to_string(g.index) + "]";
    auto it = ours.find(g.index);
    if (it == ours.end()) {
      diffs->push_back(at + ": devinfo " + g.gid + ", missing from rdmactl");
      continue;
    }
    const std::string our_gid = it->second.value("gid", "");
    auto a = GidBytes(g.gid), b = GidBytes(our_gid);
    if (!a || !b || *a != *b) diffs->push_back(at + " value: devinfo " + g.gid + ", rdmactl " + our_gid);
    if (g.type) {
      nlohmann::json t = it->second.value("type", nlohmann::json());
      if (!t.is_string() || NormalType(*g.type) != NormalType(t.get<std::string>()))
        diffs->push_back(at + " type: devinfo " + *g.type + ", rdmactl " + t.dump());
    }
    ours.erase(it);
  }
  for (const auto& [index, g] : ours)
    diffs->push_back(where + " GID[" + std::to_string(index) + "]: rdmactl " + g.value("gid", "") +
                     ", missing from devinfo");
}

}  // namespace

std::vector<std::string> CrossCheck(const std::vector<DevinfoDevice>& devinfo, const nlohmann::json& rdmactl_ports,
                                    const std::vector<std::string>& devices) {
  std::vector<std::string> diffs;
  for (const std::string& name : devices) {
    const DevinfoDevice* dd = nullptr;
    for (const auto& d : devinfo)
      if (d.name == name) dd = &d;
    const nlohmann::json* jd = nullptr;
    if (rdmactl_ports.contains("devices") && rdmactl_ports["devices"].is_array())
      for (const auto& d : rdmactl_ports["devices"])
        if (d.value("name", "") == name) jd = &d;
    if (dd == nullptr || jd == nullptr) {
      diffs.push_back(name + ": " + (dd ? "missing from rdmactl" : "missing from devinfo"));
      continue;
    }
    Compare(&diffs, name, "node_guid", Opt(dd->node_guid), jd->value("node_guid", nlohmann::json()));
    const nlohmann::json jports = jd->value("ports", nlohmann::json::array());
    Compare(&diffs, name, "port count", static_cast<int>(dd->ports.size()), static_cast<int>(jports.size()));
    for (const DevinfoPort& dp : dd->ports) {
      const std::string where = name + " port " + std::to_string(dp.number);
      const nlohmann::json* jp = nullptr;
      for (const auto& p : jports)
        if (p.value("port", 0) == dp.number) jp = &p;
      if (jp == nullptr) {
        diffs.push_back(where + ": missing from rdmactl");
        continue;
      }
      CheckPort(&diffs, where, dp, *jp);
    }
  }
  return diffs;
}

}  // namespace rdmascope::labcheck
