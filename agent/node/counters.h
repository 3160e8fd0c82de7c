// Port counters from ports/N/counters/* and ports/N/hw_counters/*.
//
// Contract: every regular file in those directories becomes one entry. A file
// holding "N/A (no PMA)" is present-but-absent (nullopt, no warning); garbage
// is nullopt with a warning naming the file. port_xmit_data and port_rcv_data
// count 4-byte words and are stored as port_xmit_data_bytes and
// port_rcv_data_bytes. hw_counters/lifespan is a setting, not a counter: skipped.
#pragma once

#include <string>

#include "agent/node/attr_reader.h"
#include "common/model.h"

namespace rdmascope {

// port_dir: e.g. "class/infiniband/mlx5_0/ports/1".
void ReadPortCounters(AttrReader& attrs, const std::string& port_dir, Port* port);

}  // namespace rdmascope
