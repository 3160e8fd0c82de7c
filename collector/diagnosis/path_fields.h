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
//  - IdList is a list of element ids in one pointer, made when the first id
//    is added (a router's paths never fill their own). It reads like a
//    std::vector<uint32_t> (view() gives one, empty when none); ids() gives
//    the vector to fill. clear() lets it go. Copies are deep.
//  - RoomForPaths(v, n): a per-path array kept across passes gets room for
//    n elements; when it must grow, for a quarter more. A pass whose paths
//    grow (a pinglist adds targets) then faults in only the pages of the
//    new paths, not a copy of the whole array; room never used is never
//    touched.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rdmascope::collector::diagnosis {

template <typename V>
void RoomForPaths(V& v, size_t n) {
  if (v.capacity() < n) v.reserve(n + n / 4);
}

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

// A unique_ptr whose copies copy what it points to (what ErrorCounts and
// IdList hold: one pointer, deep copies).
template <typename T>
class DeepPtr {
 public:
  DeepPtr() = default;
  DeepPtr(const DeepPtr& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  DeepPtr& operator=(const DeepPtr& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  DeepPtr(DeepPtr&&) noexcept = default;
  DeepPtr& operator=(DeepPtr&&) noexcept = default;

  const T* get() const { return p_.get(); }
  T& Made() {  // what it points to, made empty first when nothing
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

class ErrorCounts {
 public:
  using Map = std::map<std::string, int64_t>;

  bool empty() const { return view().empty(); }
  size_t size() const { return view().size(); }
  size_t count(const std::string& k) const { return view().count(k); }
  Map::const_iterator find(const std::string& k) const { return view().find(k); }
  Map::const_iterator begin() const { return view().begin(); }
  Map::const_iterator end() const { return view().end(); }
  int64_t& operator[](const std::string& k) { return map_.Made()[k]; }
  void clear() { map_.reset(); }

 private:
  const Map& view() const {
    static const Map none;
    return map_.get() ? *map_.get() : none;
  }
  DeepPtr<Map> map_;
};

class IdList {
 public:
  using List = std::vector<uint32_t>;

  const List& view() const {
    static const List none;
    return list_.get() ? *list_.get() : none;
  }
  List* ids() { return &list_.Made(); }
  bool empty() const { return view().empty(); }
  size_t size() const { return view().size(); }
  List::const_iterator begin() const { return view().begin(); }
  List::const_iterator end() const { return view().end(); }
  void push_back(uint32_t id) { ids()->push_back(id); }
  void clear() { list_.reset(); }

 private:
  DeepPtr<List> list_;
};

}  // namespace rdmascope::collector::diagnosis
