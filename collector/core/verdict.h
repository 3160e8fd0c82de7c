// A diagnosis verdict: where a fault is and why (made by diagnosis/, kept by
// store/, shown by http/). The contract of its fields is in diagnosis/diagnosis.h.
#pragma once

#include <cstdint>
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

  // scope|subject|kind: what the store keys an open diagnosis by.
  std::string Key() const { return scope + "|" + subject + "|" + kind; }
};

}  // namespace rdmascope::collector::diagnosis
