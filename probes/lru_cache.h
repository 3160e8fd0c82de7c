// A bounded least-recently-used map (the UD responder's reply address handles).
//
// Contract: Find() returns the value and makes it most recent. Insert() makes
// room first: it removes the least recent entries for which `evictable` is
// true until size < capacity; if every entry is pinned (evictable false) the
// insertion is refused (returns nullptr) and the cache is unchanged. The cache
// never holds more than `capacity` entries. Keys are unique.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace rdmascope::probes {

template <typename V>
class LruCache {
 public:
  explicit LruCache(size_t capacity) : cap_(capacity ? capacity : 1) {}

  V* Find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }

  V* Insert(const std::string& key, V value, const std::function<bool(const V&)>& evictable) {
    if (V* v = Find(key)) {
      *v = std::move(value);
      return v;
    }
    for (auto it = order_.end(); order_.size() >= cap_ && it != order_.begin();) {
      --it;
      if (!evictable(it->second)) continue;
      index_.erase(it->first);
      it = order_.erase(it);
    }
    if (order_.size() >= cap_) return nullptr;
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    return &order_.front().second;
  }

  size_t size() const { return order_.size(); }
  size_t capacity() const { return cap_; }
  void Clear() { index_.clear(); order_.clear(); }

 private:
  size_t cap_;
  std::list<std::pair<std::string, V>> order_;  // most recent first
  std::unordered_map<std::string, typename std::list<std::pair<std::string, V>>::iterator> index_;
};

}  // namespace rdmascope::probes
