#include "tests/support/required_tool.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace rdmascope::testsupport {

bool EveryToolRequired() {
  auto is_set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && (std::string(v) == "true" || std::string(v) == "1");
  };
  return is_set("CI") || is_set("RDMASCOPE_REQUIRE_ALL");
}

std::optional<std::string> FindTool(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return ::access(name.c_str(), X_OK) == 0 ? std::optional<std::string>(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace rdmascope::testsupport
