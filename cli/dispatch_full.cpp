// RunCommand for rdmactl-full: every command runs in this process.
#include "cli/commands.h"

namespace rdmascope::cli {

int RunCommand(const std::string& command, const GlobalOptions& g, const std::vector<std::string>& args,
               char** /*argv*/) {
  if (command == "devices") return RunDevices(g, args);
  if (command == "ports") return RunPorts(g, args);
  if (command == "counters") return RunCounters(g, args);
  if (command == "health") return RunHealth(g, args);
  if (command == "explain") return RunExplain(g, args);
  if (command == "probe") return RunProbe(g, args);
  if (command == "status") return RunStatus(g, args);
  if (command == "fabric") return RunFabric(g, args);
  if (command == "diagnose") return RunDiagnose(g, args);
  return -1;
}

}  // namespace rdmascope::cli
