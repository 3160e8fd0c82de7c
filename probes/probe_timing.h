// Time arithmetic of a probe, R-Pingmesh style: network = (T5 - T2) - (T4 - T3),
// T2/T5 the prober's send/echo completion, T3 the responder's receive
// completion, T4 just before the responder posts the echo.
//
// Contract: all results are in the host's NowNs() domain or are differences;
// none underflows (a negative difference is reported as 0). Device ticks wrap
// at `mask` (the device's completion_timestamp_mask); a tick value within half
// the mask before the reference counts as before it, not as a wrap-around.
#pragma once

#include <cstdint>

namespace rdmascope::probes {

// Converts a device completion timestamp to host time, given a reference pair
// read together (device raw clock `ref_ticks` at host time `ref_host_ns`) and
// the device clock rate in kHz (hca_core_clock). khz == 0 returns ref_host_ns.
uint64_t DeviceTicksToHostNs(uint64_t ticks, uint64_t ref_ticks, uint64_t ref_host_ns,
                             uint64_t khz, uint64_t mask);

// T4 - T3 in ns, 0 when the clock went backwards.
inline uint64_t ResponderDelayNs(uint64_t t3_ns, uint64_t t4_ns) {
  return t4_ns > t3_ns ? t4_ns - t3_ns : 0;
}

// (T5 - T2) - (T4 - T3) in microseconds, never below 0.
inline double NetworkUs(double rtt_us, double responder_us) {
  return rtt_us > responder_us ? rtt_us - responder_us : 0.0;
}

}  // namespace rdmascope::probes
