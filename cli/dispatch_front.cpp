// RunCommand for the front `rdmactl`: `fabric` here, the rest in rdmactl-full.
#include <cstdio>

#include "cli/commands.h"
#include "cli/rdmactl_handoff.h"

namespace rdmascope::cli {

int RunCommand(const std::string& command, const GlobalOptions& g, const std::vector<std::string>& args,
               char** argv) {
  if (command == "fabric") return RunFabric(g, args);
  for (const char* c : {"devices", "ports", "counters", "health", "explain", "probe", "status", "diagnose"}) {
    if (command != c) continue;
    std::fflush(stdout);
    const std::string why = ExecFull(argv);
    std::fprintf(stderr, "rdmactl %s: %s\n", command.c_str(), why.c_str());
    return 2;
  }
  return -1;
}

}  // namespace rdmascope::cli
