// SimdView: the json_view.h view over a simdjson DOM element (its contract
// is there). Kept apart so that only the files that parse with simdjson
// include its large header.
#pragma once

#include <simdjson.h>

#include "collector/core/json_view.h"

namespace rdmascope::collector {

class SimdView {
 public:
  SimdView() = default;
  explicit SimdView(simdjson::dom::element e) : e_(e), present_(true) {}

  JsonKind kind() const {
    if (!present_) return JsonKind::kAbsent;
    switch (e_.type()) {
      case simdjson::dom::element_type::NULL_VALUE: return JsonKind::kNull;
      case simdjson::dom::element_type::BOOL: return JsonKind::kBool;
      case simdjson::dom::element_type::STRING: return JsonKind::kString;
      case simdjson::dom::element_type::OBJECT: return JsonKind::kObject;
      case simdjson::dom::element_type::ARRAY: return JsonKind::kArray;
      case simdjson::dom::element_type::UINT64: return JsonKind::kUnsigned;
      case simdjson::dom::element_type::INT64:
        return Int() >= 0 ? JsonKind::kUnsigned : JsonKind::kSigned;
      case simdjson::dom::element_type::DOUBLE: return JsonKind::kFloat;
    }
    return JsonKind::kNull;
  }
  uint64_t u64() const { return Number<uint64_t>(); }
  int64_t i64() const { return Number<int64_t>(); }
  double f64() const { return Number<double>(); }
  std::string_view str() const {
    std::string_view v;
    return present_ && e_.get(v) == simdjson::SUCCESS ? v : std::string_view();
  }
  SimdView member(const char* key) const {
    simdjson::dom::object o;
    simdjson::dom::element v;
    if (!present_ || e_.get(o) != simdjson::SUCCESS || o.at_key(key).get(v) != simdjson::SUCCESS) return {};
    return SimdView(v);
  }
  size_t size() const {
    simdjson::dom::array a;
    simdjson::dom::object o;
    if (!present_) return 0;
    if (e_.get(a) == simdjson::SUCCESS) return a.size();
    if (e_.get(o) == simdjson::SUCCESS) return o.size();
    return 0;
  }
  template <class F>
  bool EachElement(F&& f) const {
    simdjson::dom::array a;
    if (!present_ || e_.get(a) != simdjson::SUCCESS) return true;
    for (simdjson::dom::element x : a)
      if (!f(SimdView(x))) return false;
    return true;
  }
  template <class F>
  bool EachMember(F&& f) const {
    simdjson::dom::object o;
    if (!present_ || e_.get(o) != simdjson::SUCCESS) return true;
    for (simdjson::dom::key_value_pair kv : o)
      if (!f(kv.key, SimdView(kv.value))) return false;
    return true;
  }

 private:
  // The number as T, converted from the type simdjson stored it as, as a
  // static_cast would; 0 when it is not a number.
  template <class T>
  T Number() const {
    if (!present_) return 0;
    switch (e_.type()) {
      case simdjson::dom::element_type::UINT64: return static_cast<T>(Uint());
      case simdjson::dom::element_type::INT64: return static_cast<T>(Int());
      case simdjson::dom::element_type::DOUBLE: return static_cast<T>(Double());
      default: return 0;
    }
  }
  int64_t Int() const {
    int64_t v = 0;
    if (e_.get(v) != simdjson::SUCCESS) return 0;
    return v;
  }
  uint64_t Uint() const {
    uint64_t v = 0;
    if (e_.get(v) != simdjson::SUCCESS) return 0;
    return v;
  }
  double Double() const {
    double v = 0;
    if (e_.get(v) != simdjson::SUCCESS) return 0;
    return v;
  }

  simdjson::dom::element e_;
  bool present_ = false;
};

}  // namespace rdmascope::collector
