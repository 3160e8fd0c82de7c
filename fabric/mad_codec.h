// Building the SMP/PMA requests a sweep sends and reading their answers, on
// top of libibmad's field tables.
//
// Contract: builders return a complete MAD (transaction id left for the
// engine); parsers read an answer that the engine matched and return an error
// naming the attribute when the MAD status is not success.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "fabric/fabric_model.h"
#include "fabric/mad_transport.h"

namespace rdmascope::fabric {

// Attribute ids (SMP and PMA) the sweep uses.
enum : int {
  kAttrClassPortInfo = 0x01,  // PMA
  kAttrNodeDesc = 0x10,
  kAttrNodeInfo = 0x11,
  kAttrSwitchInfo = 0x12,
  kAttrPortInfo = 0x15,
  kAttrLinearFwdTable = 0x19,
  kAttrPortCounters = 0x12,
  kAttrPortCountersExt = 0x1D,
  kAttrSaNodeRecord = 0x11,  // subnet administration
  kAttrSaLinkRecord = 0x20,
};

// A directed-route SMP Get; path holds the exit ports after the local port
// (empty: the local node).
OutgoingMad DirectedGet(int attr_id, uint32_t attr_mod, const std::vector<int>& path);
// A PMA Get of PortCounters / PortCountersExtended for one port of the node
// at lid; port < 0: an attribute without a port (ClassPortInfo).
OutgoingMad PmaGet(int attr_id, uint32_t lid, int port);

// What a PMA's ClassPortInfo says it answers (IBA 16.1.3.1: CapabilityMask
// bits 9-10, 12; CapabilityMask2 bit 1).
struct PmaCapabilities {
  uint16_t mask = 0;
  uint32_t mask2 = 0;
  // PortCountersExtended answers: the data and packet counters are 64 bits.
  bool extended() const { return (mask & (1u << 9 | 1u << 10)) != 0; }
  // PortCounters' PortXmitWait is counted (else the field is not a reading).
  bool xmit_wait() const { return (mask & 1u << 12) != 0; }
  // PortCountersExtended also carries the error counters, 64 bits wide.
  bool extended_errors() const { return (mask2 & 1u << 1) != 0; }
};
PmaCapabilities ParseClassPortInfo(const MadBytes& mad);

// SubnAdmGet of the one LinkRecord from (from_lid, from_port): the cable's
// other end. And of the one NodeRecord of a LID.
OutgoingMad SaLinkRecordGet(uint32_t from_lid, int from_port);
OutgoingMad SaNodeRecordGet(uint32_t lid);
struct SaLinkRecord {
  uint32_t to_lid = 0;
  int to_port = 0;
};
struct SaNodeRecord {
  uint32_t lid = 0;
  uint64_t node_guid = 0;
  NodeType type = NodeType::kUnknown;
  std::string description;
};
SaLinkRecord ParseSaLinkRecord(const MadBytes& mad);
SaNodeRecord ParseSaNodeRecord(const MadBytes& mad);
// Fails when the SA answer's MAD status is not 0 (0x0d00-ish: no record).
Status SaStatus(const MadBytes& mad, const char* attr);

// "0,1,3" — how paths are printed in names and errors.
std::string PathText(const std::vector<int>& path);

struct NodeInfoData {
  NodeType type = NodeType::kUnknown;
  int num_ports = 0;
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  int local_port = 0;
};

struct SwitchInfoData {
  int linear_fdb_cap = 0;  // entries the switch's linear table can hold (0: it has none)
  int linear_fdb_top = 0;  // the highest LID the table holds (entries 0..top)
};

// LinearForwardingTable blocks: attribute modifier = block number, kLftBlock
// egress ports per block, destination LID = block * kLftBlock + index.
constexpr int kLftBlock = 64;

// Fails when the MAD status of an SMP (directed) or PMA answer is not 0.
Status SmpStatus(const MadBytes& mad, const char* attr);
Status PmaStatus(const MadBytes& mad, const char* attr);

NodeInfoData ParseNodeInfo(const MadBytes& mad);
std::string ParseNodeDescription(const MadBytes& mad);
SwitchInfoData ParseSwitchInfo(const MadBytes& mad);
// The kLftBlock egress ports of one LinearForwardingTable block, in LID order.
void ParseLftBlock(const MadBytes& mad, uint8_t (&ports)[kLftBlock]);
// PortInfo's CapabilityMask (IBA 14.2.5.6).
uint32_t ParsePortCapabilityMask(const MadBytes& mad);
// Fills lid, states, widths and speeds of *port (number untouched). The
// extended speeds are read when the CapabilityMask has IsExtendedSpeeds-
// Supported: the port's own, or for a switch's external port (whose mask
// IBA reserves) port 0's, given as switch_port0_capmask.
void ParsePortInfo(const MadBytes& mad, FabricPort* port,
                   std::optional<uint32_t> switch_port0_capmask = std::nullopt);
// Adds the PortCounters fields to *counters (sysfs names, width saturation).
void ParsePortCounters(const MadBytes& mad, PortCounterMap* counters);
// Adds / replaces the 64-bit data and packet counters.
void ParsePortCountersExt(const MadBytes& mad, PortCounterMap* counters);
// Adds / replaces the 64-bit error counters and XmitWait of a
// PortCountersExtended answer (only where PmaCapabilities::extended_errors).
void ParsePortCountersExtErrors(const MadBytes& mad, PortCounterMap* counters);

}  // namespace rdmascope::fabric
