// The subnet as a sweep saw it: nodes, their ports, links and port counters.
//
// Contract: GUIDs are 64-bit numbers (printed as "0x" + 16 hex digits); a
// port's `remote` is set only when a node answered at the other end of the
// cable. Counters are keyed by the sysfs counters/ names (symbol_error,
// link_downed, port_xmit_data_bytes, ...) so the shared threshold table
// applies; a counter is present only when a PMA answer carried it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmascope::fabric {

enum class NodeType { kUnknown = 0, kCa = 1, kSwitch = 2, kRouter = 3 };

struct RemoteEnd {
  uint64_t guid = 0;
  int port = 0;
};

// One counter value from a PMA answer, with its width's saturation.
struct CounterValue {
  uint64_t value = 0;
  bool saturated = false;  // stuck at the maximum of its field: the true value is unknown (>=)
};
using PortCounterMap = std::map<std::string, CounterValue>;

struct FabricPort {
  int number = 0;
  uint32_t lid = 0;                 // the port's LID (a switch: port 0's LID)
  int state = 0;                    // PortInfo PortState: 1 DOWN .. 4 ACTIVE
  int phys_state = 0;               // PortInfo PortPhysicalState: 5 LinkUp
  int width_active = 0;             // PortInfo LinkWidthActive bits (common/ib_encoding.h)
  int width_supported = 0;
  int speed_active = 0;             // PortInfo LinkSpeedActive (1 SDR 2 DDR 4 QDR)
  int speed_supported = 0;
  int speed_ext_active = 0;         // LinkSpeedExtActive (1 FDR 2 EDR 4 HDR ...) when the port has it
  int speed_ext_supported = 0;
  std::optional<RemoteEnd> remote;
  PortCounterMap counters;          // empty until a PMA answer
  std::optional<std::string> counters_error;  // the PMA query that failed, when it failed
  // The port's GUID from the NodeInfo that reached it (a switch: port 0's,
  // which every port of it shares); 0 when unknown. In process only: not in
  // the JSON.
  uint64_t guid = 0;
};

struct FabricNode {
  uint64_t guid = 0;
  NodeType type = NodeType::kUnknown;
  std::string description;
  int num_ports = 0;
  uint32_t lid = 0;                 // switch: port 0 LID; CA: LID of the port first reached
  std::vector<int> dr_path;         // the directed route that reached it (port numbers)
  std::vector<FabricPort> ports;    // switch: 1..N; CA: every port 1..N that answered
  // Switch with routes read: the LinearForwardingTable, egress port by
  // destination LID (index 0..LinearFDBTop; kNoRoute where none). Empty when
  // not read.
  std::vector<uint8_t> lft;
};

constexpr uint8_t kNoRoute = 0xff;  // an LFT entry with no egress port (IBA)

// A node that was seen (or expected) but did not answer.
struct Unreachable {
  std::string path;                 // directed route "0,1,3" or "lid 12"
  std::optional<uint64_t> guid;     // when known (answered NodeInfo, then fell silent)
  std::optional<RemoteEnd> via;     // the port whose cable leads to it, when known
  std::string what;                 // the MAD that failed: "NodeInfo timed out after 3 tries"
  // A node silent from its first MAD, named by the subnet administrator
  // (the LinkRecord of `via`, then the NodeRecord of its other end's LID):
  // guid above, its description and LID. Unset when the SA did not say.
  std::optional<std::string> description;
  std::optional<uint32_t> lid;
};

struct SweepStats {
  uint64_t mads_sent = 0;
  uint64_t mads_answered = 0;
  uint64_t mads_timed_out = 0;      // attempts that got no answer in time
  uint64_t mads_failed = 0;         // requests given up after every retry
  uint64_t mads_not_sent = 0;       // of those, failed unsent: their target had gone silent
  uint64_t backoffs = 0;            // a target's window halved after an attempt got no answer
  int max_in_flight = 0;            // over every class and target
  int max_in_flight_per_target = 0; // toward one node (directed route) or LID
};

struct Fabric {
  std::vector<FabricNode> nodes;
  std::vector<Unreachable> unreachable;
  int64_t sweep_ms = 0;
  SweepStats stats;
};

// "CA", "Switch", "Router", "Unknown".
const char* NodeTypeName(NodeType t);
// "0x0002c90300012345"
std::string GuidText(uint64_t guid);
// Appends GuidText(guid) to *out (no string of its own: for names built by the thousand).
void AppendGuidText(uint64_t guid, std::string* out);
// Parses "0x..." or plain hex (1 to 16 digits); false on garbage.
bool ParseGuid(std::string_view text, uint64_t* guid);
// PortInfo encodings as ibstat/iblinkinfo print them.
const char* PortStateName(int state);      // "DOWN", "INIT", "ARMED", "ACTIVE", "?"
const char* PhysStateName(int phys);       // "Sleep", "Polling", "Disabled", ..., "LinkUp"
// Widths and speeds: common/ib_encoding.h.

}  // namespace rdmascope::fabric
