// Pinglist coverage: which source of a group probes which other group, and
// which member of it, in one rotation period. Index arithmetic only: no
// names, no JSON (pinglist.cpp maps indices to nodes).
//
// Contract. A rail has G groups; the caller numbers them (sorted by name) and
// numbers the members of each group (sorted by a stable hash). For a group A
// of a members, the other groups are numbered j = 0 .. G-2 in the same order
// with A left out, and k = min(sources_per_pair, a) (at least 1 when a > 0).
//  - Slots: A has k * (G-1) cross slots, s = j*k + c for copy c in 0..k-1,
//    each to be probed from A into other group j.
//  - Sources: slot s goes to member (s + t*k) mod a of A, t the rotation
//    period. The k slots of one group j are consecutive, so k <= a makes
//    their sources k distinct members: every ordered pair (A, B) has k
//    distinct sources in every period. A member gets floor or ceil of
//    k*(G-1)/a slots. Over ceil(a/k) consecutive periods every member of A is
//    a source toward every other group.
//  - Destinations: copy c toward a group of b members probes member
//    (offset + t*k + c) mod b, offset = a stable hash of the ordered pair of
//    groups (so groups probing the same B start at different members). The
//    k copies of one period are k consecutive members (distinct when k <= b);
//    the next period moves on by k, so every member of B is probed from A
//    within ceil(b/k) consecutive periods.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rdmascope::collector {

// Sources per ordered group pair for a group of `group_size` members:
// min(sources_per_pair, group_size), at least 1 unless the group is empty.
size_t CoverageCopies(size_t group_size, int sources_per_pair);

// One cross slot of a source: toward other group `other` (0 .. G-2, see the
// contract), copy `copy` (0 .. k-1).
struct CrossSlot {
  size_t other;
  size_t copy;
};

// The cross slots of member `member` of a group of `group_size` members, with
// `other_groups` (= G-1) other groups, k copies, in period `period`; in slot
// order. Empty when member >= group_size.
std::vector<CrossSlot> CrossSlotsOf(size_t group_size, size_t member, size_t other_groups, size_t k,
                                    uint64_t period);

// The member of a group of `size` members that copy `copy` probes in period
// `period`, k copies, starting offset `pair_offset` (any value: taken mod size).
size_t CrossMemberOf(size_t size, uint64_t pair_offset, size_t k, size_t copy, uint64_t period);

}  // namespace rdmascope::collector
