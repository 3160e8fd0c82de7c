// Saturating int64_t arithmetic for sums and differences of client-sent
// values: the result is the exact one when it fits, else INT64_MAX or
// INT64_MIN, never undefined behaviour.
#pragma once

#include <cstdint>

namespace rdmascope::collector {

inline int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

inline int64_t SatSub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
  return r;
}

}  // namespace rdmascope::collector
