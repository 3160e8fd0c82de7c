// Optional reads from a validated JSON object: absent or null is nullopt.
//
// Contract: callers use these only on documents ValidateReport accepted, so
// the type of every field read is already known to be right.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "collector/core/json_view.h"

namespace rdmascope::collector {

inline const nlohmann::json* Field(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return (it == obj.end() || it->is_null()) ? nullptr : &*it;
}

inline std::optional<int64_t> OptInt(const nlohmann::json& obj, const char* key) {
  return OptIntMember(NlohmannView(obj), key);
}

inline std::optional<double> OptReal(const nlohmann::json& obj, const char* key) {
  return OptRealMember(NlohmannView(obj), key);
}

inline std::optional<std::string> OptText(const nlohmann::json& obj, const char* key) {
  return OptTextMember(NlohmannView(obj), key);
}

}  // namespace rdmascope::collector
