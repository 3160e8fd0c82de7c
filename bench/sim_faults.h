// The fleet fault simulator's faults: parsed from --fault, resolved against
// the topology, with the verdict each one should produce.
//
// Contract:
//  - Syntax KIND:SUBJECT[:loss=X][:delay=US|P%][:down][:flap=S][:rnr], KIND one
//    of host, nic, port, link, switch, group, fleet. SUBJECT: a node name
//    (host), NODE/DEVICE (nic), NODE/DEVICE/PORT (port), 0xGUID/PORT (link,
//    either end), 0xGUID (switch), a group name (group: the nodes whose
//    "group" label, or else whose leaf switch "leaf:0x<GUID>" on their first
//    rail, is that name), "all" (fleet). Loss X is a ratio 0..1; delay is
//    microseconds or, with '%', a share of the network time. A host with no
//    effect is dead; a switch with no effect is down.
//  - Expected verdict (scope subject kind): host dead -> host NODE
//    unreachable; rnr -> host NODE rnr; loss -> loss; delay -> latency; down
//    or flap -> unreachable (a port: port_down); the link's subject is
//    "0xGa/Pa<->0xGb/Pb", its two ends ordered by that text.
//  - Errors name the fault text and what did not resolve.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/sim_topology.h"
#include "common/status.h"

namespace rdmascope::bench {

struct Expected {
  std::string scope, subject, kind;
  std::string candidate;  // RoCE mode (sim_roce.h): a link the verdict must list among its candidates ("" none)
  std::string Key() const { return scope + "|" + subject + "|" + kind; }
};

enum class FaultKind { kHost, kNic, kPort, kLink, kSwitch, kGroup, kFleet };

struct Fault {
  std::string text;
  FaultKind kind = FaultKind::kHost;
  double loss = 0;       // per crossing, 0..1
  double delay_us = 0;   // added to the network time
  double delay_pct = 0;  // network time scaled by 1 + pct/100
  bool down = false, rnr = false;
  double flap_s = 0;     // > 0: down at the start of every period of flap_s seconds
  // Resolved subject.
  size_t host = 0;              // host, nic, port
  int nic = -1;                 // nic, port: index in the host's nics (-1: every NIC of the host)
  std::vector<bool> members;    // group: by host index
  int plane = -1;               // link, switch
  fabric::PortRef end_a, end_b; // link
  uint64_t switch_guid = 0;     // switch
  Expected expected;

  // Down at simulated time t_ms, the fault active since start_ms.
  bool DownAt(int64_t t_ms, int64_t start_ms) const;
  // How many times it went down in [from_ms, to_ms) (flaps and the first fall).
  int DownTransitions(int64_t from_ms, int64_t to_ms, int64_t start_ms) const;
};

// The time a flapping link stays down in each period.
double FlapDownSeconds(double flap_s);

Result<Fault> ParseFault(const std::string& text, const SimTopology& topo);

}  // namespace rdmascope::bench
