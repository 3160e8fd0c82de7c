// Compact fields of a path summary: a pass holds a million of them, so each
// field costs memory that every pass writes (and, the first time, faults in).
//
// Contract:
//  - MaybeDouble is an optional double in 8 bytes: NaN stands for "none", so
//    a NaN assigned reads back as none. It reads and writes like
//    std::optional<double> (bool test, *, reset, has_value, value_or).
//  - ErrorCounts maps a short status name to a count, in name order, like
//    std::map; it holds one pointer and makes the map when the first entry
//    is added (most paths have no errors). clear() lets the map go. Copies
//    are deep.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace rdmascope::collector::diagnosis {

class MaybeDouble {
 public:
  MaybeDouble() = default;
  MaybeDouble(double v) : v_(v) {}  // NOLINT: reads like std::optional<double>
  MaybeDouble(std::nullopt_t) {}    // NOLINT
  MaybeDouble(const std::optional<double>& v) : v_(v ? *v : kNone) {}  // NOLINT

  bool has_value() const { return !std::isnan(v_); }
  explicit operator bool() const { return has_value(); }
  double operator*() const { return v_; }
  double& operator*() { return v_; }
  double value_or(double other) const { return has_value() ? v_ : other; }
  void reset() { v_ = kNone; }

 private:
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  double v_ = kNone;
};

class ErrorCounts {
 public:
  using Map = std::map<std::string, int64_t>;

  ErrorCounts() = default;
  ErrorCounts(const ErrorCounts& o) : map_(o.map_ ? std::make_unique<Map>(*o.map_) : nullptr) {}
  ErrorCounts& operator=(const ErrorCounts& o) {
    if (this != &o) map_ = o.map_ ? std::make_unique<Map>(*o.map_) : nullptr;
    return *this;
  }
  ErrorCounts(ErrorCounts&&) noexcept = default;
  ErrorCounts& operator=(ErrorCounts&&) noexcept = default;

  bool empty() const { return !map_ || map_->empty(); }
  size_t size() const { return map_ ? map_->size() : 0; }
  size_t count(const std::string& k) const { return map_ ? map_->count(k) : 0; }
  Map::const_iterator find(const std::string& k) const { return map_ ? map_->find(k) : None().end(); }
  Map::const_iterator begin() const { return map_ ? map_->begin() : None().begin(); }
  Map::const_iterator end() const { return map_ ? map_->end() : None().end(); }
  int64_t& operator[](const std::string& k) {
    if (!map_) map_ = std::make_unique<Map>();
    return (*map_)[k];
  }
  void clear() { map_.reset(); }

 private:
  static const Map& None() {
    static const Map none;
    return none;
  }
  std::unique_ptr<Map> map_;
};

}  // namespace rdmascope::collector::diagnosis
