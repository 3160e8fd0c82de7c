// How many empty CQ polls a spin makes between two reads of the clock.
//
// Contract: polls() starts at 16 and adapts so that the time between reads
// stays near target_ns: Adjust(elapsed, target) doubles it (up to 65536) when
// the last stride took under target / 2, halves it (down to 1) when it took
// over 2 x target. A spin therefore overshoots its budget by at most about
// 2 x target, whatever one poll costs. Why not a fixed count: where the
// clocksource is not the TSC (emulated machines, e.g. the lab's HPET) a clock
// read is a system call that costs more than many polls, and reading it every
// few polls slowed the round trips being measured (probes/README.md).
#pragma once

#include <algorithm>
#include <cstdint>

namespace rdmascope::probes {

class SpinClockStride {
 public:
  static constexpr uint32_t kFirst = 16;
  static constexpr uint32_t kMax = 65536;

  // The wanted time between clock reads for a spin of spin_ns: 1/32 of it,
  // kept within 2..50 µs.
  static uint64_t TargetNs(uint64_t spin_ns) {
    return std::clamp<uint64_t>(spin_ns / 32, 2000, 50000);
  }

  uint32_t polls() const { return polls_; }

  void Adjust(uint64_t elapsed_ns, uint64_t target_ns) {
    if (elapsed_ns < target_ns / 2 && polls_ < kMax) polls_ *= 2;
    else if (elapsed_ns > target_ns * 2 && polls_ > 1) polls_ /= 2;
  }

 private:
  uint32_t polls_ = kFirst;
};

}  // namespace rdmascope::probes
