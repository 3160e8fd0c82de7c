// Monotonic time for probes, in nanoseconds (CLOCK_MONOTONIC).
#pragma once

#include <cstdint>
#include <ctime>

namespace rdmascope::probes {

inline uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// Wall clock in milliseconds since the epoch (for event timestamps in output).
inline double WallMs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

}  // namespace rdmascope::probes
