// A direct-mapped cache in front of a slower lookup: a power-of-two table of
// slots, each holding the last key whose hash fell on it and its value. For
// the lookups a pass makes a million times over a few thousand keys.
//
// Contract: Get(key, hash, miss) returns the value for key, calling
// miss(key) when the key's slot holds another key (or none); the caller's
// hash picks the slot, and miss must give the same value for the same key
// for as long as the cache lives.
#pragma once

#include <cstddef>
#include <vector>

namespace rdmascope::collector::diagnosis {

template <typename Key, typename Value>
class DirectMapped {
 public:
  explicit DirectMapped(size_t at_least) {
    size_t n = 1;
    while (n < at_least) n *= 2;
    slots_.resize(n);
  }
  template <typename Miss>
  Value Get(const Key& key, size_t hash, Miss miss) {
    Slot& s = slots_[hash & (slots_.size() - 1)];
    if (!s.used || !(s.key == key)) s = {key, miss(key), true};
    return s.value;
  }

 private:
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
  };
  std::vector<Slot> slots_;
};

}  // namespace rdmascope::collector::diagnosis
