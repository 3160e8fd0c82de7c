#include "fabric/mad_codec.h"

#include <infiniband/mad.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "common/ib_encoding.h"

namespace rdmascope::fabric {
namespace {

uint8_t* Data(const MadBytes& mad) { return const_cast<uint8_t*>(mad.data()) + IB_SMP_DATA_OFFS; }

// One PortCounters(Extended) field as the sweep reads and stores it.
struct MadCounter {
  enum MAD_FIELDS field;
  int bits;
  uint64_t scale;          // data counters count 4-byte words: stored in bytes
  std::string_view name;   // the sysfs name it is stored under
};

// The field of that sysfs name in that table (a name missing from it does not compile).
template <size_t N>
constexpr MadCounter Field(enum MAD_FIELDS field, const ib::PortCounterField (&table)[N], std::string_view name) {
  const ib::PortCounterField& f = *ib::FieldIn(table, name);
  const ib::DataWordCounter* words = ib::DataWordCounterOf(name);
  return {field, f.bits, words ? ib::kDataWordBytes : 1, words ? words->bytes : f.name};
}

constexpr const auto& kPc = ib::kPortCounters;
constexpr const auto& kPcExt = ib::kPortCountersExtended;

// PortCounters: every field, by sysfs name.
constexpr MadCounter kPortCounters[] = {
    Field(IB_PC_ERR_SYM_F, kPc, "symbol_error"),
    Field(IB_PC_LINK_RECOVERS_F, kPc, "link_error_recovery"),
    Field(IB_PC_LINK_DOWNED_F, kPc, "link_downed"),
    Field(IB_PC_ERR_RCV_F, kPc, "port_rcv_errors"),
    Field(IB_PC_ERR_PHYSRCV_F, kPc, "port_rcv_remote_physical_errors"),
    Field(IB_PC_ERR_SWITCH_REL_F, kPc, "port_rcv_switch_relay_errors"),
    Field(IB_PC_XMT_DISCARDS_F, kPc, "port_xmit_discards"),
    Field(IB_PC_ERR_XMTCONSTR_F, kPc, "port_xmit_constraint_errors"),
    Field(IB_PC_ERR_RCVCONSTR_F, kPc, "port_rcv_constraint_errors"),
    Field(IB_PC_ERR_LOCALINTEG_F, kPc, "local_link_integrity_errors"),
    Field(IB_PC_ERR_EXCESS_OVR_F, kPc, "excessive_buffer_overrun_errors"),
    Field(IB_PC_VL15_DROPPED_F, kPc, "VL15_dropped"),
    Field(IB_PC_XMT_BYTES_F, kPc, "port_xmit_data"),
    Field(IB_PC_RCV_BYTES_F, kPc, "port_rcv_data"),
    Field(IB_PC_XMT_PKTS_F, kPc, "port_xmit_packets"),
    Field(IB_PC_RCV_PKTS_F, kPc, "port_rcv_packets"),
    Field(IB_PC_XMT_WAIT_F, kPc, "port_xmit_wait"),
};

constexpr MadCounter kPortCountersExt[] = {
    Field(IB_PC_EXT_XMT_BYTES_F, kPcExt, "port_xmit_data"),
    Field(IB_PC_EXT_RCV_BYTES_F, kPcExt, "port_rcv_data"),
    Field(IB_PC_EXT_XMT_PKTS_F, kPcExt, "port_xmit_packets"),
    Field(IB_PC_EXT_RCV_PKTS_F, kPcExt, "port_rcv_packets"),
    Field(IB_PC_EXT_XMT_UPKTS_F, kPcExt, "unicast_xmit_packets"),
    Field(IB_PC_EXT_RCV_UPKTS_F, kPcExt, "unicast_rcv_packets"),
    Field(IB_PC_EXT_XMT_MPKTS_F, kPcExt, "multicast_xmit_packets"),
    Field(IB_PC_EXT_RCV_MPKTS_F, kPcExt, "multicast_rcv_packets"),
};

constexpr const auto& kPcExtErr = ib::kPortCountersExtendedErrors;

constexpr MadCounter kPortCountersExtErrors[] = {
    Field(IB_PC_EXT_ERR_SYM_F, kPcExtErr, "symbol_error"),
    Field(IB_PC_EXT_LINK_RECOVERS_F, kPcExtErr, "link_error_recovery"),
    Field(IB_PC_EXT_LINK_DOWNED_F, kPcExtErr, "link_downed"),
    Field(IB_PC_EXT_ERR_RCV_F, kPcExtErr, "port_rcv_errors"),
    Field(IB_PC_EXT_ERR_PHYSRCV_F, kPcExtErr, "port_rcv_remote_physical_errors"),
    Field(IB_PC_EXT_ERR_SWITCH_REL_F, kPcExtErr, "port_rcv_switch_relay_errors"),
    Field(IB_PC_EXT_XMT_DISCARDS_F, kPcExtErr, "port_xmit_discards"),
    Field(IB_PC_EXT_ERR_XMTCONSTR_F, kPcExtErr, "port_xmit_constraint_errors"),
    Field(IB_PC_EXT_ERR_RCVCONSTR_F, kPcExtErr, "port_rcv_constraint_errors"),
    Field(IB_PC_EXT_ERR_LOCALINTEG_F, kPcExtErr, "local_link_integrity_errors"),
    Field(IB_PC_EXT_ERR_EXCESS_OVR_F, kPcExtErr, "excessive_buffer_overrun_errors"),
    Field(IB_PC_EXT_VL15_DROPPED_F, kPcExtErr, "VL15_dropped"),
    Field(IB_PC_EXT_XMT_WAIT_F, kPcExtErr, "port_xmit_wait"),
};

template <size_t N>
void ParseCounters(const MadBytes& mad, const MadCounter (&fields)[N], PortCounterMap* out) {
  uint8_t* data = Data(mad);
  for (const MadCounter& f : fields) {
    uint64_t raw = f.bits == 64 ? mad_get_field64(data, 0, f.field) : mad_get_field(data, 0, f.field);
    (*out)[std::string(f.name)] = CounterValue{raw * f.scale, raw == ib::CounterMax(f.bits)};
  }
}

// A Get of one attribute of one class; the engine sets the transaction id.
ib_rpc_t GetRpc(int mgtclass, int attr_id, int dataoffs) {
  ib_rpc_t rpc;
  std::memset(&rpc, 0, sizeof(rpc));
  rpc.mgtclass = mgtclass;
  rpc.method = IB_MAD_METHOD_GET;
  rpc.attr.id = static_cast<unsigned>(attr_id);
  rpc.dataoffs = dataoffs;
  rpc.trid = 1;
  return rpc;
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
  ib_rpc_t rpc = GetRpc(IB_SMI_DIRECT_CLASS, attr_id, IB_SMP_DATA_OFFS);
  rpc.attr.mod = attr_mod;
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
  ib_rpc_t rpc = GetRpc(IB_PERFORMANCE_CLASS, attr_id, IB_PC_DATA_OFFS);
  rpc.datasz = IB_PC_DATA_SZ;
  uint8_t data[IB_PC_DATA_SZ] = {0};
  if (port >= 0) mad_set_field(data, 0, IB_PC_PORT_SELECT_F, static_cast<uint32_t>(port));
  mad_encode(out.mad.data(), &rpc, nullptr, data);
  return out;
}

namespace {

// A SubnAdmGet of one record: the component mask selects the fields of
// `record` (IBA 15.2.1.1, data from IB_SA_DATA_OFFS) that must match.
OutgoingMad SaGet(int attr_id, uint64_t component_mask, const uint8_t* record, size_t record_size) {
  OutgoingMad out;
  out.cls = MadClass::kSubnAdm;
  ib_rpc_t rpc = GetRpc(IB_SA_CLASS, attr_id, IB_SA_DATA_OFFS);
  rpc.mask = component_mask;
  rpc.datasz = static_cast<int>(record_size);
  mad_encode(out.mad.data(), &rpc, nullptr, const_cast<uint8_t*>(record));
  return out;
}

uint32_t Be16(const uint8_t* p) { return uint32_t{p[0]} << 8 | p[1]; }

}  // namespace

// LinkRecord (IBA 15.2.5.13): FromLID 16, FromPort 8, ToPort 8, ToLID 16;
// component mask bit 0 FromLID, bit 1 FromPort.
OutgoingMad SaLinkRecordGet(uint32_t from_lid, int from_port) {
  uint8_t record[8] = {static_cast<uint8_t>(from_lid >> 8), static_cast<uint8_t>(from_lid),
                       static_cast<uint8_t>(from_port)};
  return SaGet(kAttrSaLinkRecord, 0x3, record, sizeof record);
}

// NodeRecord (IBA 15.2.5.2): LID 16, reserved 16, NodeInfo (40 bytes),
// NodeDescription (64); component mask bit 0 LID.
OutgoingMad SaNodeRecordGet(uint32_t lid) {
  uint8_t record[4] = {static_cast<uint8_t>(lid >> 8), static_cast<uint8_t>(lid)};
  return SaGet(kAttrSaNodeRecord, 0x1, record, sizeof record);
}

SaLinkRecord ParseSaLinkRecord(const MadBytes& mad) {
  const uint8_t* r = mad.data() + IB_SA_DATA_OFFS;
  return {Be16(r + 4), r[3]};
}

SaNodeRecord ParseSaNodeRecord(const MadBytes& mad) {
  const uint8_t* r = mad.data() + IB_SA_DATA_OFFS;
  SaNodeRecord n;
  n.lid = Be16(r);
  const uint8_t* info = r + 4;  // NodeInfo: NodeType at 2, NodeGUID at 12
  const uint8_t type = info[2];
  n.type = type >= 1 && type <= 3 ? static_cast<NodeType>(type) : NodeType::kUnknown;
  for (int i = 0; i < 8; ++i) n.node_guid = n.node_guid << 8 | info[12 + i];
  const char* desc = reinterpret_cast<const char*>(r + 44);
  n.description.assign(desc, strnlen(desc, 64));
  return n;
}

Status SaStatus(const MadBytes& mad, const char* attr) {
  return CheckStatus(mad_get_field(const_cast<uint8_t*>(mad.data()), 0, IB_MAD_STATUS_F), attr);
}

PmaCapabilities ParseClassPortInfo(const MadBytes& mad) {
  uint8_t* d = Data(mad);
  PmaCapabilities c;
  c.mask = static_cast<uint16_t>(mad_get_field(d, 0, IB_CPI_CAPMASK_F));
  c.mask2 = mad_get_field(d, 0, IB_CPI_CAPMASK2_F);
  return c;
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

SwitchInfoData ParseSwitchInfo(const MadBytes& mad) {
  uint8_t* d = Data(mad);
  SwitchInfoData s;
  s.linear_fdb_cap = static_cast<int>(mad_get_field(d, 0, IB_SW_LINEAR_FDB_CAP_F));
  s.linear_fdb_top = static_cast<int>(mad_get_field(d, 0, IB_SW_LINEAR_FDB_TOP_F));
  return s;
}

void ParseLftBlock(const MadBytes& mad, uint8_t (&ports)[kLftBlock]) {
  static_assert(kLftBlock * 8 == 512, "a LinearForwardingTable block is 64 one-byte ports");
  mad_get_array(Data(mad), 0, IB_LINEAR_FORW_TBL_F, ports);
}

uint32_t ParsePortCapabilityMask(const MadBytes& mad) { return mad_get_field(Data(mad), 0, IB_PORT_CAPMASK_F); }

void ParsePortInfo(const MadBytes& mad, FabricPort* port, std::optional<uint32_t> switch_port0_capmask) {
  uint8_t* d = Data(mad);
  port->lid = mad_get_field(d, 0, IB_PORT_LID_F);
  port->state = static_cast<int>(mad_get_field(d, 0, IB_PORT_STATE_F));
  port->phys_state = static_cast<int>(mad_get_field(d, 0, IB_PORT_PHYS_STATE_F));
  port->width_active = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F));
  port->width_supported = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F));
  port->speed_active = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F));
  port->speed_supported = static_cast<int>(mad_get_field(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F));
  const uint32_t capmask = switch_port0_capmask.value_or(ParsePortCapabilityMask(mad));
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

void ParsePortCountersExtErrors(const MadBytes& mad, PortCounterMap* counters) {
  ParseCounters(mad, kPortCountersExtErrors, counters);
}

}  // namespace rdmascope::fabric
