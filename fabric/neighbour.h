// The port at the other end of a local port's cable: NodeInfo,
// NodeDescription and PortInfo one hop out (directed route), then that port's
// PortCounters / PortCountersExtended by its node's LID.
//
// Contract: the error names the MAD that failed; a local port with nothing
// answering at the other end is an error, not an empty neighbour. Counters
// that fail leave counters empty and counters_error set.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "fabric/fabric_model.h"
#include "fabric/mad_engine.h"

namespace rdmascope::fabric {

struct Neighbour {
  int local_port = 0;
  uint64_t guid = 0;
  NodeType type = NodeType::kUnknown;
  std::string description;
  uint32_t lid = 0;
  FabricPort port;  // number, states, widths, speeds, counters of the remote port
};

Result<Neighbour> QueryNeighbour(MadTransport& transport, const EngineOptions& options, int local_port);

// {"local_port","guid","type","description","lid","port":{PortToJson with counters}}.
nlohmann::json NeighbourToJson(const Neighbour& n);

}  // namespace rdmascope::fabric
