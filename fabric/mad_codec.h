// Building the SMP/PMA requests a sweep sends and reading their answers, on
// top of libibmad's field tables.
//
// Contract: builders return a complete MAD (transaction id left for the
// engine); parsers read an answer that the engine matched and return an error
// naming the attribute when the MAD status is not success.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "fabric/fabric_model.h"
#include "fabric/mad_transport.h"

namespace rdmascope::fabric {

// Attribute ids (SMP and PMA) the sweep uses.
enum : int {
  kAttrNodeDesc = 0x10,
  kAttrNodeInfo = 0x11,
  kAttrSwitchInfo = 0x12,
  kAttrPortInfo = 0x15,
  kAttrLinearFwdTable = 0x19,
  kAttrPortCounters = 0x12,
  kAttrPortCountersExt = 0x1D,
};

// A directed-route SMP Get; path holds the exit ports after the local port
// (empty: the local node).
OutgoingMad DirectedGet(int attr_id, uint32_t attr_mod, const std::vector<int>& path);
// A PMA Get of PortCounters / PortCountersExtended for one port of the node at lid.
OutgoingMad PmaGet(int attr_id, uint32_t lid, int port);

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
// Fills lid, states, widths and speeds of *port (number untouched).
void ParsePortInfo(const MadBytes& mad, FabricPort* port);
// Adds the PortCounters fields to *counters (sysfs names, width saturation).
void ParsePortCounters(const MadBytes& mad, PortCounterMap* counters);
// Adds / replaces the 64-bit data and packet counters.
void ParsePortCountersExt(const MadBytes& mad, PortCounterMap* counters);

}  // namespace rdmascope::fabric
