#include "collector/readmodel/pinglist_coverage.h"

#include <algorithm>

namespace rdmascope::collector {

size_t CoverageCopies(size_t group_size, int sources_per_pair) {
  if (group_size == 0) return 0;
  return std::min(group_size, static_cast<size_t>(std::max(sources_per_pair, 1)));
}

std::vector<CrossSlot> CrossSlotsOf(size_t group_size, size_t member, size_t other_groups, size_t k,
                                    uint64_t period) {
  std::vector<CrossSlot> out;
  if (member >= group_size || k == 0) return out;
  const uint64_t a = group_size;
  const uint64_t slots = static_cast<uint64_t>(k) * other_groups;
  // Slot s belongs to member (s + shift) mod a: the first slot of this member
  // is (member - shift) mod a, then every a-th.
  const uint64_t shift = ((period % a) * (k % a)) % a;
  const uint64_t first = (member + a - shift) % a;
  for (uint64_t s = first; s < slots; s += a) out.push_back(CrossSlot{static_cast<size_t>(s / k), static_cast<size_t>(s % k)});
  return out;
}

size_t CrossMemberOf(size_t size, uint64_t pair_offset, size_t k, size_t copy, uint64_t period) {
  if (size == 0) return 0;
  const uint64_t b = size;
  const uint64_t step = ((period % b) * (k % b)) % b;
  return static_cast<size_t>((pair_offset % b + step + copy % b) % b);
}

}  // namespace rdmascope::collector
