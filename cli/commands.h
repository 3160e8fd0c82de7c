// rdmactl subcommands. Each takes the global options and the arguments after
// the subcommand name, prints its result, and returns the process exit code
// (monitoring-plugin convention: 0 ok, 1 warning, 2 critical/error).
#pragma once

#include <string>
#include <vector>

namespace rdmascope::cli {

struct GlobalOptions {
  std::string sysfs_root = "/sys";
  bool json = false;
};

int RunDevices(const GlobalOptions& g, const std::vector<std::string>& args);
int RunPorts(const GlobalOptions& g, const std::vector<std::string>& args);
int RunCounters(const GlobalOptions& g, const std::vector<std::string>& args);
int RunHealth(const GlobalOptions& g, const std::vector<std::string>& args);
int RunExplain(const GlobalOptions& g, const std::vector<std::string>& args);
int RunProbe(const GlobalOptions& g, const std::vector<std::string>& args);
int RunStatus(const GlobalOptions& g, const std::vector<std::string>& args);
int RunFabric(const GlobalOptions& g, const std::vector<std::string>& args);
int RunDiagnose(const GlobalOptions& g, const std::vector<std::string>& args);

// True when args holds -h or --help.
bool WantsHelp(const std::vector<std::string>& args);

// Runs `command` and returns its exit code, or -1 when no such command exists.
// `argv` is the process's own (argc entries and a null), for a hand-off.
// Two definitions, one per executable: dispatch_full.cpp runs every command;
// dispatch_front.cpp (the `rdmactl` users run) runs `fabric` itself and hands
// every other command, argv unchanged, to rdmactl-full (see rdmactl_handoff.h).
int RunCommand(const std::string& command, const GlobalOptions& g, const std::vector<std::string>& args,
               char** argv);

}  // namespace rdmascope::cli
