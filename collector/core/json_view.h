// Read-only views of a parsed JSON value: NlohmannView here, SimdView (over a
// simdjson DOM element) in simd_view.h, with the same members, so that report
// validation and probe extraction are written once (as templates) for both
// parsers.
//
// Contract:
//  - A view is cheap to copy and does not own its value; it is valid while the
//    document it points into is (for simdjson: until its parser parses again).
//  - An absent view (member() of a key that is not there, or of a non-object)
//    has kind() kAbsent; every other accessor on it returns an empty answer.
//  - Numbers are classed as nlohmann's parser classes them: an integer >= 0
//    is kUnsigned, a negative integer kSigned, anything else kFloat. u64(),
//    i64() and f64() convert from any number kind as a static_cast would;
//    callers check the kind first when the range matters.
//  - member() finds the first member of that name. nlohmann's parser keeps
//    the last of duplicate keys, so its documents never have two; the report
//    decoder (report_decode.h) keeps the first, as this does.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

enum class JsonKind { kAbsent, kNull, kBool, kString, kObject, kArray, kUnsigned, kSigned, kFloat };

class NlohmannView {
 public:
  NlohmannView() = default;
  explicit NlohmannView(const nlohmann::json& j) : j_(&j) {}

  JsonKind kind() const {
    if (!j_) return JsonKind::kAbsent;
    switch (j_->type()) {
      case nlohmann::json::value_t::null: return JsonKind::kNull;
      case nlohmann::json::value_t::boolean: return JsonKind::kBool;
      case nlohmann::json::value_t::string: return JsonKind::kString;
      case nlohmann::json::value_t::object: return JsonKind::kObject;
      case nlohmann::json::value_t::array: return JsonKind::kArray;
      case nlohmann::json::value_t::number_unsigned: return JsonKind::kUnsigned;
      case nlohmann::json::value_t::number_integer:
        return j_->get<int64_t>() >= 0 ? JsonKind::kUnsigned : JsonKind::kSigned;
      case nlohmann::json::value_t::number_float: return JsonKind::kFloat;
      default: return JsonKind::kNull;  // discarded / binary: never in a parsed report
    }
  }
  uint64_t u64() const { return j_ && j_->is_number() ? j_->get<uint64_t>() : 0; }
  int64_t i64() const { return j_ && j_->is_number() ? j_->get<int64_t>() : 0; }
  double f64() const { return j_ && j_->is_number() ? j_->get<double>() : 0; }
  std::string_view str() const {
    return j_ && j_->is_string() ? std::string_view(j_->get_ref<const std::string&>()) : std::string_view();
  }
  NlohmannView member(const char* key) const {
    if (!j_ || !j_->is_object()) return {};
    auto it = j_->find(key);
    return it == j_->end() ? NlohmannView() : NlohmannView(*it);
  }
  size_t size() const { return j_ && (j_->is_object() || j_->is_array()) ? j_->size() : 0; }
  // f(NlohmannView) -> bool; false stops. Arrays only.
  template <class F>
  bool EachElement(F&& f) const {
    if (!j_ || !j_->is_array()) return true;
    for (const auto& e : *j_)
      if (!f(NlohmannView(e))) return false;
    return true;
  }
  // f(std::string_view key, NlohmannView) -> bool; false stops. Objects only.
  template <class F>
  bool EachMember(F&& f) const {
    if (!j_ || !j_->is_object()) return true;
    for (const auto& [k, v] : j_->items())
      if (!f(std::string_view(k), NlohmannView(v))) return false;
    return true;
  }

 private:
  const nlohmann::json* j_ = nullptr;
};

template <class V>
bool IsNumber(const V& v) {
  const JsonKind k = v.kind();
  return k == JsonKind::kUnsigned || k == JsonKind::kSigned || k == JsonKind::kFloat;
}

// Optional reads of a member of a validated object: absent or null is
// nullopt (PresentMember: an absent view), as is a value of another type.
// An integer read of a float truncates it; a number beyond int64_t (which
// the validator refuses) saturates to INT64_MAX or INT64_MIN, NaN reads 0.
template <class V>
V PresentMember(const V& obj, const char* key) {
  V v = obj.member(key);
  return v.kind() == JsonKind::kNull ? V() : v;
}

inline int64_t SaturatedInt64(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775808.0) return INT64_MAX;
  if (d < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(d);
}

// Any number as an int64_t, as OptIntMember reads it.
template <class V>
int64_t SaturatedInt64Of(const V& v) {
  switch (v.kind()) {
    case JsonKind::kFloat: return SaturatedInt64(v.f64());
    case JsonKind::kUnsigned: return v.u64() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v.u64());
    default: return v.i64();
  }
}

template <class V>
std::optional<int64_t> OptIntMember(const V& obj, const char* key) {
  const V v = obj.member(key);
  if (!IsNumber(v)) return std::nullopt;
  return SaturatedInt64Of(v);
}

template <class V>
std::optional<double> OptRealMember(const V& obj, const char* key) {
  const V v = obj.member(key);
  return IsNumber(v) ? std::optional<double>(v.f64()) : std::nullopt;
}

template <class V>
std::optional<std::string> OptTextMember(const V& obj, const char* key) {
  const V v = obj.member(key);
  return v.kind() == JsonKind::kString ? std::optional<std::string>(std::string(v.str())) : std::nullopt;
}

}  // namespace rdmascope::collector
