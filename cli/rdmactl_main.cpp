// rdmactl: on-demand RDMA checks on this node. Options and help; the
// commands run through RunCommand (commands.h), which differs between the
// front `rdmactl` and rdmactl-full.
//
// Global options may stand anywhere before a "--": --sysfs-root DIR, --json.
// Exit codes follow monitoring plugins: 0 ok, 1 warning, 2 critical or error.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/version.h"

namespace {

constexpr char kUsage[] =
    "usage: rdmactl [--sysfs-root DIR] [--json] COMMAND [ARGS]\n"
    "\n"
    "On-demand RDMA diagnostics for this node.\n"
    "\n"
    "commands:\n"
    "  devices             RDMA devices: GUIDs, firmware, board, type, ports\n"
    "  ports               every port: state, LID, SM LID, rate, link layer, MTU, GIDs, netdevs\n"
    "  counters            port counters and hw_counters (absent is shown as absent, not 0)\n"
    "  health              0 all ports ACTIVE and counters under thresholds, 1 warning, 2 critical\n"
    "  explain STATUS      what a work-completion status means and what to check (12, RETRY_EXC, ...)\n"
    "  probe               probe one peer agent now over RC or UD\n"
    "  status              the fabric as the collector sees it: nodes, bad ports, worst pairs, events\n"
    "  fabric SUB          the InfiniBand subnet over MADs: discover, counters, errors, port LID|GUID N\n"
    "  diagnose            where the collector locates faults (host, NIC, port, link between groups) and why\n"
    "\n"
    "global options:\n"
    "  --sysfs-root DIR    read DIR/class/infiniband instead of /sys/class/infiniband\n"
    "                      (verbs queries are made only for the live /sys)\n"
    "  --json              machine-readable output\n"
    "  -h, --help          this help; `rdmactl COMMAND --help` for a command\n"
    "  --version           the version and the git revision of this build\n"
    "\n"
    "exit codes: 0 ok, 1 warning, 2 critical or error\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace rdmascope::cli;
  GlobalOptions g;
  std::string command;
  std::vector<std::string> rest;
  bool passthrough = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (passthrough) {
      rest.push_back(a);
    } else if (a == "--") {
      passthrough = true;
      rest.push_back(a);
    } else if (a == "--json") {
      g.json = true;
    } else if (a == "--sysfs-root" || a.rfind("--sysfs-root=", 0) == 0) {
      if (a == "--sysfs-root") {
        if (i + 1 >= argc) {
          std::fprintf(stderr, "rdmactl: --sysfs-root needs a directory\n");
          return 2;
        }
        g.sysfs_root = argv[++i];
      } else {
        g.sysfs_root = a.substr(std::strlen("--sysfs-root="));
      }
    } else if (command.empty() && a == "--version") {
      return rdmascope::PrintVersionIfAsked("rdmactl", {a}) ? 0 : 2;
    } else if (command.empty() && (a == "-h" || a == "--help" || a == "help")) {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (command.empty() && a.rfind("-", 0) == 0) {
      std::fprintf(stderr, "rdmactl: unknown option %s\n\n%s", a.c_str(), kUsage);
      return 2;
    } else if (command.empty()) {
      command = a;
    } else {
      rest.push_back(a);
    }
  }
  if (command.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const int code = RunCommand(command, g, rest, argv);
  if (code >= 0) return code;
  std::fprintf(stderr, "rdmactl: unknown command \"%s\"\n\n%s", command.c_str(), kUsage);
  return 2;
}
