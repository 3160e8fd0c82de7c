#include "probes/probe_timing.h"

namespace rdmascope::probes {

uint64_t DeviceTicksToHostNs(uint64_t ticks, uint64_t ref_ticks, uint64_t ref_host_ns,
                             uint64_t khz, uint64_t mask) {
  if (khz == 0) return ref_host_ns;
  if (mask == 0) mask = ~0ull;
  const uint64_t fwd = (ticks - ref_ticks) & mask;  // ticks after the reference
  const bool before = fwd > mask / 2;
  const uint64_t dticks = before ? ((ref_ticks - ticks) & mask) : fwd;
  const uint64_t dns = uint64_t((unsigned __int128)dticks * 1000000u / khz);
  if (!before) return ref_host_ns + dns;
  return dns < ref_host_ns ? ref_host_ns - dns : 0;
}

}  // namespace rdmascope::probes
