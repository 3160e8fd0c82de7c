// The status name of a probe error entry, for any json_view.h view: its
// status_name (or name) when given and not empty, else the WC table's short
// name of its status; -1 is PROBE_DEADLINE, -2 CONNECT, an unknown number
// STATUS_<n>.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "collector/core/json_view.h"
#include "common/wc_status.h"

namespace rdmascope::collector {

template <class V>
std::string ProbeErrorStatusNameOf(const V& error) {
  for (const char* k : {"status_name", "name"}) {
    const V v = error.member(k);
    if (v.kind() == JsonKind::kString && !v.str().empty()) return std::string(v.str());
  }
  const V s = error.member("status");
  const int status = IsNumber(s) ? static_cast<int>(s.i64()) : 0;
  if (status == -1) return "PROBE_DEADLINE";
  if (status == -2) return "CONNECT";
  if (const WcStatusInfo* info = FindWcStatus(status)) return std::string(info->short_name);
  return "STATUS_" + std::to_string(status);
}

// The status name of a probe error entry: status_name (or name) when given,
// else the WC table's short name; -1 PROBE_DEADLINE, -2 CONNECT.
std::string ProbeErrorStatusName(const nlohmann::json& error);
// "RETRY_EXC_ERR (12)" -> "RETRY_EXC_ERR"; other keys unchanged.
std::string StatusKeyName(const std::string& key);

}  // namespace rdmascope::collector
