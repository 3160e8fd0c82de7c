// Counts the store adds up that must never fail a statement: every running
// sum (rollups, error totals, event counts) is capped at 2^62, and a merge
// adds what still fits below the cap, so it never overflows either. An
// integer overflow fails the statement on PostgreSQL (bigint out of range)
// and on SQLite turns the value into a REAL or fails an integer SUM().
// Written once for both engines (LEAST is PostgreSQL's, which SQLite's
// connections have too: store_db.h).
#pragma once

#include <algorithm>
#include <cstdint>

// The cap, as SQL text.
#define SUM_CAP "4611686018427387904"
// "C = ..." merging table T's stored C with the inserted row's (excluded) C,
// for an upsert's DO UPDATE SET.
#define SAT_MERGE(T, C) C " = LEAST(" T "." C ", " SUM_CAP " - excluded." C ") + excluded." C

namespace rdmascope::collector {

inline constexpr int64_t kSumCap = int64_t{1} << 62;  // SUM_CAP
// A count bound to a statement, below the cap.
inline int64_t Capped(int64_t n) { return std::min(n, kSumCap); }

}  // namespace rdmascope::collector
