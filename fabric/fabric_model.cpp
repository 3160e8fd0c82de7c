#include "fabric/fabric_model.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace rdmascope::fabric {

const char* NodeTypeName(NodeType t) {
  switch (t) {
    case NodeType::kCa: return "CA";
    case NodeType::kSwitch: return "Switch";
    case NodeType::kRouter: return "Router";
    default: return "Unknown";
  }
}

std::string GuidText(uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(guid));
  return buf;
}

bool ParseGuid(const std::string& text, uint64_t* guid) {
  std::string t = text;
  if (t.rfind("0x", 0) == 0 || t.rfind("0X", 0) == 0) t = t.substr(2);
  if (t.empty() || t.size() > 16) return false;
  for (char c : t)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  *guid = std::strtoull(t.c_str(), nullptr, 16);
  return true;
}

const char* PortStateName(int state) {
  switch (state) {
    case 1: return "DOWN";
    case 2: return "INIT";
    case 3: return "ARMED";
    case 4: return "ACTIVE";
    case 5: return "ACTIVE_DEFER";
    default: return "?";
  }
}

const char* PhysStateName(int phys) {
  switch (phys) {
    case 1: return "Sleep";
    case 2: return "Polling";
    case 3: return "Disabled";
    case 4: return "PortConfigurationTraining";
    case 5: return "LinkUp";
    case 6: return "LinkErrorRecovery";
    case 7: return "PhyTest";
    default: return "?";
  }
}

}  // namespace rdmascope::fabric
