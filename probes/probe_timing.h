// Time arithmetic of a probe, R-Pingmesh style: network = (T5 - T2) - (T4 - T3),
// T2/T5 the prober's send/echo completion, T3 the responder's receive
// completion, T4 just before the responder posts the echo.
//
// Contract: every difference is taken in one clock: device ticks with device
// ticks (completion timestamps and raw clock readings of the same device),
// host NowNs() with host NowNs(), never one with the other; none underflows
// (a negative difference is reported as 0). Device ticks wrap at `mask` (the
// device's completion_timestamp_mask); a later tick within half the mask
// before the earlier one counts as before it (0), not as a wrap-around.
#pragma once

#include <cstdint>

namespace rdmascope::probes {

// The time from device tick `from` to device tick `to` in ns, at the device
// clock rate `khz` (hca_core_clock, ticks per ms), the ticks wrapping at `mask`
// (0: 64 bits). 0 when `to` is before `from`, or khz == 0.
uint64_t DeviceTicksBetweenNs(uint64_t from, uint64_t to, uint64_t khz, uint64_t mask);

// T4 - T3 in ns, 0 when the clock went backwards.
inline uint64_t ResponderDelayNs(uint64_t t3_ns, uint64_t t4_ns) {
  return t4_ns > t3_ns ? t4_ns - t3_ns : 0;
}

// (T5 - T2) - (T4 - T3) in microseconds, never below 0.
inline double NetworkUs(double rtt_us, double responder_us) {
  return rtt_us > responder_us ? rtt_us - responder_us : 0.0;
}

}  // namespace rdmascope::probes
