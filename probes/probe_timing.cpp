#include "probes/probe_timing.h"

namespace rdmascope::probes {

uint64_t DeviceTicksBetweenNs(uint64_t from, uint64_t to, uint64_t khz, uint64_t mask) {
  if (khz == 0) return 0;
  if (mask == 0) mask = ~0ull;
  const uint64_t ticks = (to - from) & mask;  // forward, across a wrap
  if (ticks > mask / 2) return 0;              // `to` is before `from`
  return uint64_t((unsigned __int128)ticks * 1000000u / khz);
}

}  // namespace rdmascope::probes
