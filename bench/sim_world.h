// The fleet fault simulator's world: the topology with faults applied over
// simulated time — which hosts answer, which ports are up, what each probe
// path measures in an interval, and the counters the faults move.
//
// Contract:
//  - Faults are active in [start_ms, end_ms). Probes of an interval are
//    spread evenly over it; each is judged at its own time: lost when its
//    destination host is dead or any element of its forward or return route
//    (host, NIC, cable, switch) is down then; else each crossing of a lossy
//    element (and background loss, once per direction) may drop it. Routes
//    are traced only while a link or switch fault is active; in RoCE mode
//    (WorldOptions::roce) each direction takes its ECMP crossing instead
//    (RoceFabric::Direction).
//  - UD: a dropped probe is lost. RC: the request is retried up to 7 times,
//    each retry after the ACK timeout (kRcAckTimeoutUs), so loss shows as a
//    rise of the slow percentiles; when every try is lost the completion is
//    RETRY_EXC_ERR. A down path loses every RC probe as RETRY_EXC_ERR, and an
//    rnr host fails every RC probe toward it as RNR_RETRY_EXC_ERR.
//  - Times: network_us = (base by hops x the path's fixed lognormal factor
//    x per-probe noise) x (1 + delay%) + delay_us; responder_us a small
//    lognormal; rtt_us = network + responder. Deterministic in (seed,
//    interval, path, transport).
//  - AdvanceCounters(t0, t1) moves the counters a fault would in that
//    interval: symbol and receive errors on both ends of a lossy cable (the
//    host's port counters when one end is a NIC), link_downed per fall of a
//    down or flapping link, receive errors on a lossy NIC, the senders'
//    local_ack_timeout_err / rnr_nak_retry_err come from the probes.
//  - Sweep(plane, t): the plane's fabric as a sweep at t would see it: a
//    down switch is missing (listed unreachable, via a neighbour), ports of
//    down cables DOWN, the counters so far.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/sim_faults.h"
#include "bench/sim_roce.h"
#include "bench/sim_topology.h"

namespace rdmascope::bench {

struct ActiveFault {
  Fault fault;
  int64_t start_ms = 0, end_ms = 0;
};

struct WorldOptions {
  uint64_t seed = 1;
  double background_loss = 0;
  int probe_count = 10;  // the agent's default per transport per target per rail per interval
  bool roce = false;     // switches forward by ECMP (sim_roce.h), not by the planes' tables
};

// The host-side counters of one NIC port, cumulative.
struct NicCounters {
  uint64_t symbol_error = 0, link_downed = 0, port_rcv_errors = 0, port_xmit_discards = 0;
  uint64_t xmit_bytes = 0, rcv_bytes = 0, xmit_packets = 0, rcv_packets = 0;
  uint64_t local_ack_timeout_err = 0, rnr_nak_retry_err = 0, out_of_sequence = 0;
};

class SimWorld {
 public:
  static constexpr double kRcAckTimeoutUs = 67108.9;  // 4.096 us x 2^14
  SimWorld(const SimTopology& topo, WorldOptions options);

  void SetFaults(std::vector<ActiveFault> faults) { faults_ = std::move(faults); }
  const std::vector<ActiveFault>& faults() const { return faults_; }
  const SimTopology& topo() const { return topo_; }

  bool HostDead(size_t host, int64_t t_ms) const;
  // The NIC's port is down: a port fault, its cable down, its leaf switch down.
  bool NicDown(size_t host, int nic, int64_t t_ms) const;
  bool HostRnr(size_t host, int64_t t_ms) const;

  // One probe entry (the report's JSON object, as text) from host src's NIC
  // `nic` to host dst's NIC of the same rail over `transport` ("ud"/"rc")
  // for the interval [t0, t1). Adds the RC retries to src's counters.
  std::string ProbeEntry(size_t src, int nic, size_t dst, int dst_nic, const char* transport, int64_t t0, int64_t t1,
                         uint64_t interval_index);
  // The entry of a rail that did not probe (its local port is not ACTIVE).
  std::string NotRunEntry(size_t src, int nic, size_t dst, int dst_nic, const char* transport, int64_t t0, int64_t t1) const;

  void AdvanceCounters(int64_t t0, int64_t t1, uint64_t interval_index);
  const NicCounters& Counters(size_t host, int nic) const { return nic_counters_[host][nic]; }
  // Switch port counters and states as a sweep at t sees them.
  fabric::Fabric Sweep(int plane, int64_t t_ms) const;
  // The switch port at the other end of a NIC's cable, as a neighbour query sees it at t.
  fabric::FabricPort LeafPort(size_t host, int nic, int64_t t_ms) const;
  const fabric::FabricNode* Node(int plane, uint64_t guid) const;

 private:
  struct PathEffect;
  bool Active(const ActiveFault& a, int64_t t) const { return t >= a.start_ms && t < a.end_ms; }
  bool LinkDownAt(const fabric::PortRef& end, int64_t t) const;  // the cable at `end` is down
  bool SwitchDownAt(uint64_t guid, int64_t t) const;
  void NoteLinkErrors(const fabric::PortRef& end, uint64_t symbol, uint64_t rcv, uint64_t downed);

  const SimTopology& topo_;
  WorldOptions o_;
  RoceFabric roce_;
  std::vector<ActiveFault> faults_;
  std::vector<std::vector<NicCounters>> nic_counters_;      // [host][nic]
  std::vector<fabric::Fabric> counted_;                       // per plane: counters so far
  std::vector<std::unordered_map<uint64_t, size_t>> index_;   // per plane: guid -> node index in counted_
  std::unordered_map<uint64_t, std::pair<size_t, int>> nic_by_guid_;  // CA GUID -> (host, nic)
};

}  // namespace rdmascope::bench
