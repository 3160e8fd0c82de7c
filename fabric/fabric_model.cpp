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

std::string WidthName(int w) {
  switch (w) {
    case 1: return "1X";
    case 2: return "4X";
    case 4: return "8X";
    case 8: return "12X";
    case 16: return "2X";
    default: return "?";
  }
}

std::string SpeedName(int speed, int speed_ext) {
  switch (speed_ext) {
    case 1: return "FDR";
    case 2: return "EDR";
    case 4: return "HDR";
    case 8: return "NDR";
    default: break;
  }
  switch (speed) {
    case 1: return "SDR";
    case 2: return "DDR";
    case 4: return "QDR";
    case 8: return "FDR10";
    default: return "?";
  }
}

}  // namespace rdmascope::fabric
