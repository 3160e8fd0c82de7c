#include "collector/core/probe_error_name.h"

namespace rdmascope::collector {

std::string StatusKeyName(const std::string& key) {
  size_t paren = key.rfind(" (");
  if (paren != std::string::npos && !key.empty() && key.back() == ')') return key.substr(0, paren);
  return key;
}

std::string ProbeErrorStatusName(const nlohmann::json& error) { return ProbeErrorStatusNameOf(NlohmannView(error)); }

}  // namespace rdmascope::collector
