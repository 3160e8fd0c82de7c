#include "fabric/fabric_model.h"

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

void AppendGuidText(uint64_t guid, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  const size_t at = out->size();
  out->resize(at + 18);
  char* p = out->data() + at;
  p[0] = '0', p[1] = 'x';
  for (int i = 17; i >= 2; --i, guid >>= 4) p[i] = kHex[guid & 0xf];
}

std::string GuidText(uint64_t guid) {
  std::string out;
  AppendGuidText(guid, &out);
  return out;
}

bool ParseGuid(std::string_view t, uint64_t* guid) {
  if (t.size() >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  if (t.empty() || t.size() > 16) return false;
  uint64_t v = 0;
  for (char c : t) {  // by hand, not <cctype>: a fleet's topology read parses a hundred thousand
    const char lower = static_cast<char>(c | 0x20);
    uint64_t digit;
    if (c >= '0' && c <= '9') digit = static_cast<uint64_t>(c - '0');
    else if (lower >= 'a' && lower <= 'f') digit = static_cast<uint64_t>(lower - 'a' + 10);
    else return false;
    v = v << 4 | digit;
  }
  *guid = v;
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
