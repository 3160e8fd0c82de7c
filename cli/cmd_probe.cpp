// `rdmactl probe`: one peer, now, over RC or UD (see kProbeHelp).
#include <cstdio>

#include "cli/commands.h"
#include "cli/probe_args.h"
#include "cli/probe_output.h"
#include "probes/probe_json.h"
#include "probes/prober.h"
#include "probes/verbs_resources.h"

namespace rdmascope::cli {

int RunProbe(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(kProbeHelp, stdout);
    return 0;
  }
  auto parsed = ParseProbeArgs(args);
  if (!parsed.ok()) {
    std::fprintf(stderr, "rdmactl probe: %s\n\n%s", parsed.status().message().c_str(), kProbeHelp);
    return 2;
  }
  ProbeArgs a = std::move(parsed).value();
  const bool json = a.json || g.json;
  if (a.options.device.empty()) {
    auto names = probes::ListDeviceNames();
    if (names.size() != 1) {
      std::fprintf(stderr, "rdmactl probe: --device is required (%zu RDMA devices found)\n", names.size());
      return 2;
    }
    a.options.device = names[0];
  }
  a.options.on_error = [](const probes::ProbeError& e) {
    std::fprintf(stderr, "rdmactl probe: %s\n", ProbeErrorLine(e).c_str());
  };
  auto run = a.transport == "rc" ? probes::RunRcProbe(a.options) : probes::RunUdProbe(a.options);
  if (!run.ok()) {
    if (json) {
      nlohmann::json j = {{"error", run.status().message()}};
      std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    }
    std::fprintf(stderr, "rdmactl probe: %s\n", run.status().message().c_str());
    return 2;
  }
  probes::ProbeSummary s = probes::SummarizeRun(*run);
  if (json) {
    std::printf("%s\n", probes::RunToJson(*run, s, a.options.host, a.options.host, a.options.control_port).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    PrintProbeText(stdout, *run, s, a.options.host, a.options.control_port);
  }
  if (!run->errors.empty()) return 2;
  if (s.lost > 0) return 1;
  return 0;
}

}  // namespace rdmascope::cli
