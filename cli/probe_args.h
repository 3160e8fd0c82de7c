// Parsing of `rdmactl probe` arguments into prober options.
//
// Contract: every option is validated (numbers in range, one HOST); an error
// names the option. HOST may carry the control port as HOST:PORT.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "probes/prober.h"

namespace rdmascope::cli {

// Probes per burst by default (ProberOptions::burst): one primer in ten.
constexpr uint64_t kDefaultProbeBurst = 10;

struct ProbeArgs {
  std::string transport = "ud";  // "ud" or "rc"
  probes::ProberOptions options;
  bool json = false;
};

Result<ProbeArgs> ParseProbeArgs(const std::vector<std::string>& args);

extern const char kProbeHelp[];

}  // namespace rdmascope::cli
