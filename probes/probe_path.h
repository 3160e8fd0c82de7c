// How probes travel: the class of service they ask for (RoCE traffic class,
// InfiniBand service level) and how the local GID they leave from is pinned
// (by IPv4 subnet; a GID index is ProberOptions::gid_index).
//
// Contract: the parsers accept decimal numbers in range and "A.B.C.D/N"
// subnets only, and their errors name the option and the allowed range, so
// callers can prefix a flag or a config key. ProbeClass values reach the
// verbs calls unchanged: ah_attr.grh.traffic_class (RoCE: the IP TOS byte,
// DSCP << 2 | ECN) and ah_attr.sl, for UD address handles and for the RC
// QP's path (qp_setup.h).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace rdmascope::probes {

constexpr int kMaxTrafficClass = 255;
constexpr int kMaxServiceLevel = 15;

struct ProbeClass {
  int traffic_class = 0;  // 0..255: GRH traffic class; on RoCE v2 the IP TOS (DSCP 26 = 104)
  int sl = 0;             // 0..15: InfiniBand service level (its VL mapping picks the lane)
  bool operator==(const ProbeClass& o) const { return traffic_class == o.traffic_class && sl == o.sl; }
};

// Range checks; the error names the field and the range.
Status ValidateProbeClass(const ProbeClass& c);
// "104" -> 104; error "traffic class must be a number 0..255 (...), got 'x'".
Result<int> ParseTrafficClass(const std::string& text);
// "3" -> 3; error "service level must be a number 0..15, got 'x'".
Result<int> ParseServiceLevel(const std::string& text);

struct Ipv4Subnet {
  uint32_t network = 0;  // host byte order, host bits cleared
  int prefix_len = 0;    // 0..32
  std::string text;      // canonical "A.B.C.D/N"
  bool operator==(const Ipv4Subnet& o) const { return network == o.network && prefix_len == o.prefix_len; }
};

// "10.0.0.0/24" -> subnet; host bits set ("10.0.0.7/24") are an error, so a
// typo is not silently widened.
Result<Ipv4Subnet> ParseIpv4Subnet(const std::string& text);
// True when `gid` is IPv4-mapped (::ffff:a.b.c.d) with a.b.c.d in `subnet`.
bool GidInSubnet(const ibv_gid& gid, const Ipv4Subnet& subnet);
// The first (index, gid) of `candidates` (the port's RoCE v2 GIDs, in index
// order) inside `subnet`; the error lists what the port has.
Result<int> PickGidInSubnet(const std::vector<std::pair<int, ibv_gid>>& candidates, const Ipv4Subnet& subnet);

// Path settings as given on a command line or for one rail of the config:
// unset fields keep the prober's defaults.
struct ProbePathSettings {
  std::optional<int> gid_index;
  std::optional<Ipv4Subnet> gid_subnet;
  std::optional<int> traffic_class;
  std::optional<int> sl;
};

// The setting names, in documentation order: gid_index, gid_subnet,
// probe_traffic_class, probe_sl ('-' and '_' are the same in a name).
const std::vector<std::string>& ProbePathSettingNames();
bool IsProbePathSetting(const std::string& name);
// Parses `value` for setting `name` into *s. The error names the range.
Status ApplyProbePathSetting(const std::string& name, const std::string& value, ProbePathSettings* s);
// The local GID is pinned by index or by subnet, not both.
Status ValidateProbePathSettings(const ProbePathSettings& s);

// Copies the set fields into prober or scheduler options (both have
// gid_index, gid_subnet and probe_class).
template <typename Options>
void ApplyProbePath(const ProbePathSettings& s, Options* o) {
  if (s.gid_index) o->gid_index = s.gid_index;
  if (s.gid_subnet) o->gid_subnet = s.gid_subnet;
  if (s.traffic_class) o->probe_class.traffic_class = *s.traffic_class;
  if (s.sl) o->probe_class.sl = *s.sl;
}

}  // namespace rdmascope::probes
