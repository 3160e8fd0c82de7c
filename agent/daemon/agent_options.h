// Command line of rdmascope-agent.
//
// Contract: ParseAgentOptions() validates every option and names the bad one;
// --help sets `help`.
#pragma once

#include <string>
#include <vector>

#include "agent/daemon/rails.h"
#include "common/status.h"
#include "probes/probe_scheduler.h"
#include "probes/responder.h"

namespace rdmascope::agent {

struct AgentOptions {
  bool responder_only = false;
  bool help = false;
  probes::ResponderOptions responder;  // responder.devices: every --device
  // Repeatable flags; when given they replace the config file's lists.
  std::vector<std::string> devices;              // --device DEV
  std::vector<RailSpec> rails;                   // --rail NAME=DEV[/PORT]
  std::vector<probes::ProbeTarget> probe_targets;  // --probe-target
};

Result<AgentOptions> ParseAgentOptions(const std::vector<std::string>& args);

extern const char kAgentUsage[];

}  // namespace rdmascope::agent
