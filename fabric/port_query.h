// One port's counters by LID, for `rdmactl fabric port` and the agent's
// neighbour lookup.
//
// Contract: sends PortCounters and PortCountersExtended at once through the
// engine; the error names the MAD that failed (no extended counters is fine).
#pragma once

#include "common/status.h"
#include "fabric/fabric_model.h"
#include "fabric/mad_engine.h"

namespace rdmascope::fabric {

Result<PortCounterMap> QueryPortCounters(MadTransport& transport, const EngineOptions& options, uint32_t lid,
                                         int port);

}  // namespace rdmascope::fabric
