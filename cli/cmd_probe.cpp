// Placeholder until the probe engine lands: says so and fails.
#include <cstdio>

#include "cli/commands.h"

namespace rdmascope::cli {

int RunProbe(const GlobalOptions&, const std::vector<std::string>&) {
  std::fprintf(stderr, "rdmactl probe: not built yet\n");
  return 2;
}

}  // namespace rdmascope::cli
