// What a probe endpoint needs to know about a local port: LID, GID, MTU.
//
// Contract: DescribePort() fails (naming the verb) when the port cannot be
// queried or is not ACTIVE. An explicit GID index wins; else, with a GID
// subnet, the first RoCE v2 GID whose IPv4-mapped address lies in it (an
// error naming the subnet and the port's GIDs when none does). Otherwise on
// RoCE it picks the RoCE v2 GID that holds an IPv4-mapped address
// (::ffff:a.b.c.d), then any RoCE v2 GID, then index 0. On InfiniBand it uses
// GID index 0 and the LID.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "probes/probe_path.h"

namespace rdmascope::probes {

struct LocalPort {
  std::string device;
  int port = 1;
  int gid_index = 0;
  ibv_gid gid{};
  uint16_t lid = 0;
  bool roce = false;                 // link layer Ethernet: address by GID + GRH
  ibv_mtu active_mtu = IBV_MTU_1024;
};

Result<LocalPort> DescribePort(ibv_context* ctx, const std::string& device, int port,
                               std::optional<int> gid_index,
                               const std::optional<Ipv4Subnet>& gid_subnet = std::nullopt);

// Port numbers (1-based) in state ACTIVE.
std::vector<int> ActivePorts(ibv_context* ctx);

// GID indexes of type RoCE v2 on the port (empty on InfiniBand or on error).
std::vector<int> RoceV2GidIndexes(ibv_context* ctx, int port);

// True for an IPv4-mapped GID (::ffff:a.b.c.d).
bool IsIpv4MappedGid(const ibv_gid& gid);

// Text form of a GID (IPv6 notation: "::ffff:192.168.77.2", "fe80::1").
std::string GidToString(const ibv_gid& gid);
// Parses the IPv6 notation back; error on anything else.
Result<ibv_gid> GidFromString(const std::string& text);
// The IPv4-mapped GID of a dotted-quad address; error if `ipv4` is not one.
Result<ibv_gid> Ipv4MappedGid(const std::string& ipv4);

// MTU enum <-> bytes (256..4096); bytes that are not an MTU give IBV_MTU_1024.
int MtuBytes(ibv_mtu mtu);
ibv_mtu MtuFromBytes(int bytes);

}  // namespace rdmascope::probes
