// IsErrorCounter (contract in error_counters.h).
#include "collector/rules/error_counters.h"

#include <algorithm>
#include <cctype>

#include "collector/rules/thresholds.h"

namespace rdmascope::collector {

bool IsErrorCounter(const std::string& name) {
  static const CounterThresholds kTable = DefaultCounterThresholds();
  if (kTable.count(name)) return true;
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* w : {"err", "retr", "timeout", "drop", "discard", "seq", "nak", "rnr", "dup", "out_of", "resend",
                        "downed", "symbol"})
    if (n.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace rdmascope::collector
