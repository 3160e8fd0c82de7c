// Probe path settings per rail (agent/daemon/rails.h): which local GID a rail's
// prober leaves from and which class of service its probes ask for.
//
// Config contract: the keys gid_index, gid_subnet, probe_traffic_class and
// probe_sl (flags --gid-index, ...) each take a comma-separated list whose
// items are VALUE (every rail) or RAIL=VALUE (that rail; it wins over a plain
// VALUE), e.g. `probe_traffic_class = 104, storage=96`. Setting a key again
// (a flag over the file) replaces that key's whole list. A rail pins its GID
// by index or by subnet: a rail item of one replaces a plain item of the
// other, and both for the same rail is an error.
#pragma once

#include <map>
#include <string>

#include "common/status.h"
#include "probes/probe_path.h"

namespace rdmascope::agent {

struct RailPaths {
  probes::ProbePathSettings all;                          // plain VALUE items
  std::map<std::string, probes::ProbePathSettings> by_rail;  // RAIL=VALUE items

  // The settings of one rail: `all` overlaid with the rail's own items.
  probes::ProbePathSettings For(const std::string& rail) const;
};

// Replaces key `name` (one of probes::ProbePathSettingNames()) from `value`;
// the error names the bad item and the allowed range.
Status ApplyRailPathKey(const std::string& name, const std::string& value, RailPaths* paths);

}  // namespace rdmascope::agent
