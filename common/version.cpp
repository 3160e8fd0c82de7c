#include "common/version.h"

#include <cstdio>

namespace rdmascope {

bool PrintVersionIfAsked(const char* program, const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "--version") {
      std::printf("%s %s\n", program, kVersion);
      return true;
    }
  }
  return false;
}

}  // namespace rdmascope
