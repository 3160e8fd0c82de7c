// Command line of rdmascope-agent.
//
// Contract: ParseAgentOptions() validates every option and names the bad one;
// --help sets `help`.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "probes/probe_scheduler.h"
#include "probes/responder.h"

namespace rdmascope::agent {

struct AgentOptions {
  bool responder_only = false;
  bool help = false;
  probes::ResponderOptions responder;
  // Probing of other agents (reporting mode only); no targets: no probing.
  std::vector<probes::ProbeTarget> probe_targets;
  std::string probe_device;  // empty: the only device, if there is exactly one
  int probe_port = 1;
  uint64_t probe_count = 10;  // per transport per target per report interval
};

Result<AgentOptions> ParseAgentOptions(const std::vector<std::string>& args);

extern const char kAgentUsage[];

}  // namespace rdmascope::agent
