#include "cli/commands.h"

namespace rdmascope::cli {

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

}  // namespace rdmascope::cli
