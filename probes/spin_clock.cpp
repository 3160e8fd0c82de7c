#include "probes/spin_clock.h"

#include <time.h>

#include <mutex>

#include "probes/probe_clock.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace rdmascope::probes {

uint64_t CyclesToNs(uint64_t cycles, uint64_t c0, uint64_t t0_ns, double ns_per_cycle) {
  if (cycles <= c0) return t0_ns;
  return t0_ns + uint64_t(double(cycles - c0) * ns_per_cycle);
}

#if defined(__x86_64__)
namespace {
struct Calibration {
  uint64_t c0 = 0, t0 = 0;
  double ns_per_cycle = 0;  // 0: the counter is unusable, use NowNs()
};

const Calibration& Calibrate() {
  static Calibration cal;
  static std::once_flag once;
  std::call_once(once, [] {
    const uint64_t t0 = NowNs(), c0 = __rdtsc();
    timespec ms{0, 1000000};
    nanosleep(&ms, nullptr);
    const uint64_t t1 = NowNs(), c1 = __rdtsc();
    if (c1 <= c0 || t1 <= t0) return;
    const double r = double(t1 - t0) / double(c1 - c0);
    if (r < 0.01 || r > 100) return;  // not a 10 MHz..100 GHz counter: do not trust it
    cal.c0 = c0;
    cal.t0 = t0;
    cal.ns_per_cycle = r;
  });
  return cal;
}
}  // namespace

uint64_t SpinClockNs() {
  const Calibration& cal = Calibrate();
  if (cal.ns_per_cycle == 0) return NowNs();
  return CyclesToNs(__rdtsc(), cal.c0, cal.t0, cal.ns_per_cycle);
}
#else
uint64_t SpinClockNs() { return NowNs(); }
#endif

}  // namespace rdmascope::probes
