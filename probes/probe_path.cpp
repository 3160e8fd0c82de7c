#include "probes/probe_path.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "probes/local_port.h"

namespace rdmascope::probes {
namespace {

// A decimal number 0..hi; nullopt otherwise.
std::optional<int> SmallNumber(const std::string& text, int hi) {
  if (text.empty() || text.size() > 3) return std::nullopt;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v > hi) return std::nullopt;
  return v;
}

std::string Quoted(const std::string& text) { return "'" + text.substr(0, 64) + "'"; }

}  // namespace

Status ValidateProbeClass(const ProbeClass& c) {
  if (c.traffic_class < 0 || c.traffic_class > kMaxTrafficClass)
    return Status::Error("traffic class must be 0..255, got " + std::to_string(c.traffic_class));
  if (c.sl < 0 || c.sl > kMaxServiceLevel)
    return Status::Error("service level must be 0..15, got " + std::to_string(c.sl));
  return Status::Ok();
}

Result<int> ParseTrafficClass(const std::string& text) {
  auto v = SmallNumber(text, kMaxTrafficClass);
  if (!v) {
    return Status::Error("traffic class must be a number 0..255 (RoCE v2: the IP TOS byte, DSCP x 4), got " +
                         Quoted(text));
  }
  return *v;
}

Result<int> ParseServiceLevel(const std::string& text) {
  auto v = SmallNumber(text, kMaxServiceLevel);
  if (!v) return Status::Error("service level must be a number 0..15, got " + Quoted(text));
  return *v;
}

Result<Ipv4Subnet> ParseIpv4Subnet(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return Status::Error("GID subnet must be A.B.C.D/N (IPv4, N 0..32): " + why + ", got " + Quoted(text));
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return bad("no /N");
  auto len = SmallNumber(text.substr(slash + 1), 32);
  if (!len) return bad("prefix length not 0..32");
  in_addr a{};
  if (inet_pton(AF_INET, text.substr(0, slash).c_str(), &a) != 1) return bad("not an IPv4 address");
  Ipv4Subnet s;
  s.prefix_len = *len;
  const uint32_t mask = s.prefix_len == 0 ? 0 : ~uint32_t(0) << (32 - s.prefix_len);
  const uint32_t host = ntohl(a.s_addr);
  if ((host & ~mask) != 0) return bad("host bits are set (did you mean the network address?)");
  s.network = host;
  s.text = text.substr(0, slash) + "/" + std::to_string(s.prefix_len);
  return s;
}

bool GidInSubnet(const ibv_gid& gid, const Ipv4Subnet& subnet) {
  if (!IsIpv4MappedGid(gid)) return false;
  uint32_t be = 0;
  std::memcpy(&be, gid.raw + 12, 4);
  const uint32_t mask = subnet.prefix_len == 0 ? 0 : ~uint32_t(0) << (32 - subnet.prefix_len);
  return (ntohl(be) & mask) == subnet.network;
}

Result<int> PickGidInSubnet(const std::vector<std::pair<int, ibv_gid>>& candidates, const Ipv4Subnet& subnet) {
  std::string have;
  for (const auto& [index, gid] : candidates) {
    if (GidInSubnet(gid, subnet)) return index;
    have += (have.empty() ? "" : ", ") + std::to_string(index) + ":" + GidToString(gid);
  }
  return Status::Error("no RoCE v2 GID in subnet " + subnet.text + " (the port has: " +
                       (have.empty() ? "none" : have) + "); check the interface's IPv4 address or the subnet");
}

const std::vector<std::string>& ProbePathSettingNames() {
  static const std::vector<std::string> kNames = {"gid_index", "gid_subnet", "probe_traffic_class", "probe_sl"};
  return kNames;
}

namespace {
std::string Underscored(std::string name) {
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}
}  // namespace

bool IsProbePathSetting(const std::string& name) {
  const auto& names = ProbePathSettingNames();
  return std::find(names.begin(), names.end(), Underscored(name)) != names.end();
}

Status ApplyProbePathSetting(const std::string& name, const std::string& value, ProbePathSettings* s) {
  const std::string n = Underscored(name);
  if (n == "gid_index") {
    auto v = SmallNumber(value, 255);
    if (!v) return Status::Error("GID index must be a number 0..255, got " + Quoted(value));
    s->gid_index = *v;
  } else if (n == "gid_subnet") {
    auto v = ParseIpv4Subnet(value);
    if (!v.ok()) return v.status();
    s->gid_subnet = *v;
  } else if (n == "probe_traffic_class") {
    auto v = ParseTrafficClass(value);
    if (!v.ok()) return v.status();
    s->traffic_class = *v;
  } else if (n == "probe_sl") {
    auto v = ParseServiceLevel(value);
    if (!v.ok()) return v.status();
    s->sl = *v;
  } else {
    return Status::Error("unknown probe path setting '" + name + "'");
  }
  return Status::Ok();
}

Status ValidateProbePathSettings(const ProbePathSettings& s) {
  if (s.gid_index && s.gid_subnet)
    return Status::Error("the local GID is pinned by gid_index or by gid_subnet, not both");
  return Status::Ok();
}

}  // namespace rdmascope::probes
