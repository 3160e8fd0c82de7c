// The clock that bounds busy-polls: nanoseconds on the NowNs() scale, read
// without a system call where the CPU has a cycle counter.
//
// Contract: SpinClockNs() is non-decreasing within a thread, advances with
// real time to within a few percent, and may drift from NowNs() over long
// runs; use it only to bound spins, never for a timestamp. Why: where the
// kernel's clocksource is not the TSC (emulated machines such as the lab,
// whose clocksource is the HPET) clock_gettime is a system call of ~1 µs,
// and a spin reading it slowed the very round trips it waited for
// (probes/README.md). x86-64 reads the TSC, calibrated once per process
// against NowNs() over ~1 ms; other CPUs use NowNs().
#pragma once

#include <cstdint>

namespace rdmascope::probes {

uint64_t SpinClockNs();

// Converts a cycle count to ns given a calibration: (c - c0) x ns / cycles
// from t0. Exposed for tests.
uint64_t CyclesToNs(uint64_t cycles, uint64_t c0, uint64_t t0_ns, double ns_per_cycle);

}  // namespace rdmascope::probes
