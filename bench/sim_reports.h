// The fleet fault simulator's synthetic agents: one report per live host per
// interval, in the shape the real agent sends (schemas/REPORT_FORMAT.md).
//
// Contract: BuildHostReport gives the report's JSON text for host `host` at
// interval end t1 (its probes cover [t0, t1)): labels control_port and rails
// ("0,1,.."), the inventory (one device per NIC, port 1 with its LID, GUID,
// state, counters and hw_counters), rails with each port's state, the IB
// neighbour of every ACTIVE port (the leaf switch GUID, description, LID
// and port with its counters), and one probe entry per target of each
// rail's pinglist and transport (ud, rc) — not_run entries when the rail's
// port is down. `sweep_plane` >= 0 adds that plane's sweep as the fabric
// section (with "from": the host's NIC on that plane). Without
// with_neighbours the report leaves its neighbours out; with group_label it
// carries the label group="leaf:0x<GUID>" of its first rail's leaf (the
// group the collector would derive from the neighbours).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/sim_world.h"

namespace rdmascope::bench {

// The targets of one rail's pinglist: host indices.
using RailTargets = std::vector<size_t>;

std::string BuildHostReport(SimWorld& world, size_t host, int64_t t0, int64_t t1, uint64_t interval_index,
                            const std::vector<RailTargets>& targets_by_rail, int sweep_plane, int interval_s,
                            bool with_neighbours = true, bool group_label = false);

// The host whose report carries plane p's sweep at t: the first live host,
// counted from host p, whose NIC on that plane is up; -1 when none.
int SweeperOf(const SimWorld& world, int plane, int64_t t_ms);

}  // namespace rdmascope::bench
