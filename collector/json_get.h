// Optional reads from a validated JSON object: absent or null is nullopt.
//
// Contract: callers use these only on documents ValidateReport accepted, so
// the type of every field read is already known to be right.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

inline const nlohmann::json* Field(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return (it == obj.end() || it->is_null()) ? nullptr : &*it;
}

inline std::optional<int64_t> OptInt(const nlohmann::json& obj, const char* key) {
  const nlohmann::json* v = Field(obj, key);
  if (!v || !v->is_number()) return std::nullopt;
  return v->is_number_float() ? static_cast<int64_t>(v->get<double>()) : v->get<int64_t>();
}

inline std::optional<double> OptReal(const nlohmann::json& obj, const char* key) {
  const nlohmann::json* v = Field(obj, key);
  return (v && v->is_number()) ? std::optional<double>(v->get<double>()) : std::nullopt;
}

inline std::optional<std::string> OptText(const nlohmann::json& obj, const char* key) {
  const nlohmann::json* v = Field(obj, key);
  return (v && v->is_string()) ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
}

}  // namespace rdmascope::collector
