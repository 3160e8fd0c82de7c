#include "fabric/mad_codec.h"

#include <infiniband/mad.h>

#include <cstdio>
#include <cstring>

namespace rdmascope::fabric {
namespace {

uint8_t* Data(const MadBytes& mad) { return const_cast<uint8_t*>(mad.data()) + IB_SMP_DATA_OFFS; }

struct CounterField {
  enum MAD_FIELDS field;
  const char* name;
  int bits;
  int scale;  // data counters count 4-byte words
};

// PortCounters: every field, its width, by sysfs name.
constexpr CounterField kPortCounters[] = {
    {IB_PC_ERR_SYM_F, "symbol_error", 16, 1},
    {IB_PC_LINK_RECOVERS_F, "link_error_recovery", 8, 1},
    {IB_PC_LINK_DOWNED_F, "link_downed", 8, 1},
    {IB_PC_ERR_RCV_F, "port_rcv_errors", 16, 1},
    {IB_PC_ERR_PHYSRCV_F, "port_rcv_remote_physical_errors", 16, 1},
    {IB_PC_ERR_SWITCH_REL_F, "port_rcv_switch_relay_errors", 16, 1},
    {IB_PC_XMT_DISCARDS_F, "port_xmit_discards", 16, 1},
    {IB_PC_ERR_XMTCONSTR_F, "port_xmit_constraint_errors", 8, 1},
    {IB_PC_ERR_RCVCONSTR_F, "port_rcv_constraint_errors", 8, 1},
    {IB_PC_ERR_LOCALINTEG_F, "local_link_integrity_errors", 4, 1},
    {IB_PC_ERR_EXCESS_OVR_F, "excessive_buffer_overrun_errors", 4, 1},
    {IB_PC_VL15_DROPPED_F, "VL15_dropped", 16, 1},
    {IB_PC_XMT_BYTES_F, "port_xmit_data_bytes", 32, 4},
    {IB_PC_RCV_BYTES_F, "port_rcv_data_bytes", 32, 4},
    {IB_PC_XMT_PKTS_F, "port_xmit_packets", 32, 1},
    {IB_PC_RCV_PKTS_F, "port_rcv_packets", 32, 1},
    {IB_PC_XMT_WAIT_F, "port_xmit_wait", 32, 1},
};

constexpr CounterField kPortCountersExt[] = {
    {IB_PC_EXT_XMT_BYTES_F, "port_xmit_data_bytes", 64, 4},
    {IB_PC_EXT_RCV_BYTES_F, "port_rcv_data_bytes", 64, 4},
    {IB_PC_EXT_XMT_PKTS_F, "port_xmit_packets", 64, 1},
    {IB_PC_EXT_RCV_PKTS_F, "port_rcv_packets", 64, 1},
    {IB_PC_EXT_XMT_UPKTS_F, "unicast_xmit_packets", 64, 1},
    {IB_PC_EXT_RCV_UPKTS_F, "unicast_rcv_packets", 64, 1},
    {IB_PC_EXT_XMT_MPKTS_F, "multicast_xmit_packets", 64, 1},
    {IB_PC_EXT_RCV_MPKTS_F, "multicast_rcv_packets", 64, 1},
};

template <size_t N>
void ParseCounters(const MadBytes& mad, const CounterField (&fields)[N], PortCounterMap* out) {
  uint8_t* data = Data(mad);
  for (const CounterField& f : fields) {
    uint64_t raw = f.bits == 64 ? mad_get_field64(data, 0, f.field) : mad_get_field(data, 0, f.field);
    uint64_t max = f.bits == 64 ? ~uint64_t{0} : ((uint64_t{1} << f.bits) - 1);
    (*out)[f.name] = CounterValue{raw * static_cast<uint64_t>(f.scale), raw == max};
  }
}

Status CheckStatus(uint32_t status, const char* attr) {
  if (status == 0) return Status::Ok();
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%s answered with MAD status 0x%04x", attr, status);
  return Status::Error(buf);
}

}  // namespace

OutgoingMad DirectedGet(int attr_id, uint32_t attr_mod, const std::vector<int>& path) {
  OutgoingMad out;
  out.cls = MadClass::kDirectedSmp;
  ib_rpc_t rpc;
  std::memset(&rpc, 0, sizeof(rpc));
  rpc.mgtclass = IB_SMI_DIRECT_CLASS;
  rpc.method = IB_MAD_METHOD_GET;
  rpc.attr.id = static_cast<unsigned>(attr_id);
  rpc.attr.mod = attr_mod;
  rpc.dataoffs = IB_SMP_DATA_OFFS;
  rpc.trid = 1;  // the engine sets the real one
  ib_dr_path_t dr;
  std::memset(&dr, 0, sizeof(dr));
  dr.cnt = static_cast<int>(path.size());
  for (size_t i = 0; i < path.size() && i + 1 < sizeof(dr.p); ++i) dr.p[i + 1] = static_cast<uint8_t>(path[i]);
  mad_encode(out.mad.data(), &rpc, &dr, nullptr);
  return out;
}

OutgoingMad PmaGet(int attr_id, uint32_t lid, int port) {
  OutgoingMad out;
  out.cls = MadClass::kPerformance;
  out.dlid = lid;
  ib_rpc_t rpc;
  std::memset(&rpc, 0, sizeof(rpc));
  rpc.mgtclass = IB_PERFORMANCE_CLASS;
  rpc.method = IB_MAD_METHOD_GET;
  rpc.attr.id = static_cast<unsigned>(attr_id);
  rpc.dataoffs = IB_PC_DATA_OFFS;
  rpc.datasz = IB_PC_DATA_SZ;
  rpc.trid = 1;
  uint8_t data[IB_PC_DATA_SZ] = {0};
  mad_set_field(data, 0, IB_PC_PORT_SELECT_F, static_cast<uint32_t>(port));
  mad_encode(out.mad.data(), &rpc, nullptr, data);
  return out;
}

std::string PathText(const std::vector<int>& path) {
  std::string s = "0";
  for (int p : path) s += "," + std::to_string(p);
  return s;
}

Status SmpStatus(const MadBytes& mad, const char* attr) {
  return CheckStatus(mad_get_field(const_cast<uint8_t*>(mad.data()), 0, IB_DRSMP_STATUS_F), attr);
}

Status PmaStatus(const MadBytes& mad, const char* attr) {
  return CheckStatus(mad_get_field(const_cast<uint8_t*>(mad.data()), 0, IB_MAD_STATUS_F), attr);
}

NodeInfoData ParseNodeInfo(const MadBytes& mad) {
  uint8_t* d = Data(mad);
  NodeInfoData n;
  uint32_t type = mad_get_field(d, 0, IB_NODE_TYPE_F);
  n.type = (type >= 1 && type <= 3) ? static_cast<NodeType>(type) : NodeType::kUnknown;
  n.num_ports = static_cast<int>(mad_get_field(d, 0, IB_NODE_NPORTS_F));
  n.node_guid = mad_get_field64(d, 0, IB_NODE_GUID_F);
  n.port_guid = mad_get_field64(d, 0, IB_NODE_PORT_GUID_F);
  n.local_port = static_cast<int>(mad_get_field(d, 0, IB_NODE_LOCAL_PORT_F));
  return n;
}

std::string ParseNodeDescription(const MadBytes& mad) {
  const char* d = reinterpret_cast<const char*>(Data(mad));
  size_t n = strnlen(d, 64);
  return std::string(d, n);
}

void ParsePortInfo(const MadBytes& mad, FabricPort* port) {
  uint8_t* d = Data(mad);
  port->lid = mad_get_field(d, 0, IB_PORT_LID_F);
  port->state = static_cast<int>(mad_get_field(d, 0, IB_PORT_STATE_F));
  port->phys_state = static_cast<int>(mad_get_field(d, 0, IB_PORT_PHYS_STATE_F));
  port->width_active = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F));
  port->width_supported = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F));
  port->speed_active = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F));
  port->speed_supported = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F));
  uint32_t capmask = mad_get_field(d, 0, IB_PORT_CAPMASK_F);
  constexpr uint32_t kExtendedSpeeds = 1u << 14;
  if (capmask & kExtendedSpeeds) {
    port->speed_ext_active = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F));
    port->speed_ext_supported = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F));
  }
}

void ParsePortCounters(const MadBytes& mad, PortCounterMap* counters) { ParseCounters(mad, kPortCounters, counters); }

void ParsePortCountersExt(const MadBytes& mad, PortCounterMap* counters) {
  ParseCounters(mad, kPortCountersExt, counters);
}

}  // namespace rdmascope::fabric
