// A diagnosis verdict: where a fault is and why (made by diagnosis/, kept by
// store/, shown by http/). The contract of its fields is in diagnosis/diagnosis.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace rdmascope::collector::diagnosis {

struct Verdict {
  std::string scope;    // host | nic | port | group_link | switch_port | unknown
  std::string subject;  // node, node/device, node/device/port, "a<->b", ...
  std::string kind;     // unreachable | loss | latency | rnr | access | port_down
  std::string severity; // warning | critical
  double confidence = 0;  // 0..1
  int64_t first_bad_ms = 0;  // earliest interval start among its bad paths (0: none)
  nlohmann::json evidence = nlohmann::json::array();
  nlohmann::json paths = nlohmann::json::array();  // [{src,dst,rail,transport,kind}]
  int flaps = 0;  // times it came back after a gap (the tracker's count; the store keeps the largest)

  // scope|subject|kind: the key of the diagnosis it opens or refreshes. An
  // open diagnosis's key is always its current kind's: when its kind
  // escalates, its row takes the new key (the store keeps at most one open
  // diagnosis per element, see Element()).
  std::string Key() const { return scope + "|" + subject + "|" + kind; }
  // scope|subject: the element; one open diagnosis per element.
  std::string Element() const { return scope + "|" + subject; }
};

// What the store says of an open diagnosis: its severity and its evidence as
// last written (the tracker takes back its own entries after a restart).
struct OpenDiagnosis {
  std::string severity;
  nlohmann::json evidence = nlohmann::json::array();
};
using OpenDiagnoses = std::map<std::string, OpenDiagnosis>;  // open key -> what it is

}  // namespace rdmascope::collector::diagnosis
