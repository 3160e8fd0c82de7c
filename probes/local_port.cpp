#include "probes/local_port.h"

#include <arpa/inet.h>

#include <cstring>

#include "probes/verbs_error.h"

namespace rdmascope::probes {

bool IsIpv4MappedGid(const ibv_gid& g) {
  static const uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(g.raw, kPrefix, 12) == 0;
}

std::vector<int> ActivePorts(ibv_context* ctx) {
  std::vector<int> ports;
  ibv_device_attr attr{};
  if (ibv_query_device(ctx, &attr) != 0) return ports;
  for (int p = 1; p <= attr.phys_port_cnt; ++p) {
    ibv_port_attr pa{};
    if (ibv_query_port(ctx, uint8_t(p), &pa) == 0 && pa.state == IBV_PORT_ACTIVE) ports.push_back(p);
  }
  return ports;
}

std::vector<int> RoceV2GidIndexes(ibv_context* ctx, int port) {
  std::vector<int> out;
  ibv_port_attr pa{};
  if (ibv_query_port(ctx, uint8_t(port), &pa) != 0) return out;
  for (int i = 0; i < pa.gid_tbl_len && i < 256; ++i) {
    ibv_gid_entry e{};
    if (ibv_query_gid_ex(ctx, uint32_t(port), uint32_t(i), &e, 0) != 0) continue;
    if (e.gid_type == IBV_GID_TYPE_ROCE_V2) out.push_back(i);
  }
  return out;
}

Result<LocalPort> DescribePort(ibv_context* ctx, const std::string& device, int port,
                               std::optional<int> gid_index,
                               const std::optional<Ipv4Subnet>& gid_subnet) {
  LocalPort lp;
  lp.device = device;
  lp.port = port;
  ibv_port_attr pa{};
  int rc = ibv_query_port(ctx, uint8_t(port), &pa);
  if (rc != 0) return ErrnoStatus("ibv_query_port", rc, device + " port " + std::to_string(port));
  if (pa.state != IBV_PORT_ACTIVE) {
    return Status::Error(device + " port " + std::to_string(port) + " is not ACTIVE (state " +
                         ibv_port_state_str(pa.state) + ")");
  }
  lp.lid = pa.lid;
  lp.roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
  lp.active_mtu = pa.active_mtu;
  if (gid_index) {
    lp.gid_index = *gid_index;
  } else if (gid_subnet) {
    std::vector<std::pair<int, ibv_gid>> candidates;
    for (int i : RoceV2GidIndexes(ctx, port)) {
      ibv_gid g{};
      if (ibv_query_gid(ctx, uint8_t(port), i, &g) == 0) candidates.emplace_back(i, g);
    }
    auto picked = PickGidInSubnet(candidates, *gid_subnet);
    if (!picked.ok()) return Status::Error(device + " port " + std::to_string(port) + ": " + picked.status().message());
    lp.gid_index = *picked;
  } else if (lp.roce) {
    int chosen = -1;
    for (int i : RoceV2GidIndexes(ctx, port)) {
      ibv_gid g{};
      if (ibv_query_gid(ctx, uint8_t(port), i, &g) != 0) continue;
      if (IsIpv4MappedGid(g)) { chosen = i; break; }
      if (chosen < 0) chosen = i;
    }
    lp.gid_index = chosen < 0 ? 0 : chosen;
  }
  errno = 0;
  rc = ibv_query_gid(ctx, uint8_t(port), lp.gid_index, &lp.gid);
  if (rc != 0) return ErrnoStatus("ibv_query_gid", errno ? errno : EINVAL, device + " gid index " + std::to_string(lp.gid_index));
  return lp;
}

std::string GidToString(const ibv_gid& gid) {
  char buf[INET6_ADDRSTRLEN] = {0};
  inet_ntop(AF_INET6, gid.raw, buf, sizeof buf);
  return buf;
}

Result<ibv_gid> GidFromString(const std::string& text) {
  ibv_gid g{};
  if (text.size() > 64 || inet_pton(AF_INET6, text.c_str(), g.raw) != 1) {
    return Status::Error("not a GID in IPv6 notation: '" + text.substr(0, 64) + "'");
  }
  return g;
}

Result<ibv_gid> Ipv4MappedGid(const std::string& ipv4) {
  ibv_gid g{};
  in_addr a{};
  if (inet_pton(AF_INET, ipv4.c_str(), &a) != 1) return Status::Error("not an IPv4 address: " + ipv4);
  g.raw[10] = 0xff;
  g.raw[11] = 0xff;
  std::memcpy(g.raw + 12, &a, 4);
  return g;
}

int MtuBytes(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
  }
  return 1024;
}

ibv_mtu MtuFromBytes(int bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: return IBV_MTU_1024;
  }
}

}  // namespace rdmascope::probes
