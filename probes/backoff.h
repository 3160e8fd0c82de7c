// Exponential back-off for reconnecting a failed probe target, with jitter.
//
// Contract: the schedule is initial, initial*factor, ... capped at max;
// Reset() starts over after a success. NextDelayMs() returns the schedule's
// next step scaled by a factor drawn uniformly from [1 - jitter, 1]
// (jitter clamped to [0, 1]; never below 1 ms), so probers that lost the
// same target at the same moment (a fleet whose peer restarted) do not
// reconnect in lock-step. jitter 0 (the default) is deterministic; the seed
// makes a jittered schedule reproducible in tests.
#pragma once

#include <cstdint>
#include <random>

namespace rdmascope::probes {

class Backoff {
 public:
  Backoff(uint64_t initial_ms = 50, uint64_t max_ms = 2000, unsigned factor = 2, double jitter = 0,
          uint64_t seed = 0)
      : initial_ms_(initial_ms ? initial_ms : 1), max_ms_(max_ms < initial_ms_ ? initial_ms_ : max_ms),
        factor_(factor < 1 ? 1 : factor), next_ms_(initial_ms_),
        jitter_(jitter < 0 ? 0 : (jitter > 1 ? 1 : jitter)), rng_(seed) {}

  // The delay before the next attempt; advances the schedule.
  uint64_t NextDelayMs() {
    uint64_t d = next_ms_;
    next_ms_ = (next_ms_ > max_ms_ / factor_) ? max_ms_ : next_ms_ * factor_;
    if (next_ms_ > max_ms_) next_ms_ = max_ms_;
    if (jitter_ > 0) {
      const double scale = 1.0 - jitter_ * std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
      d = uint64_t(double(d) * scale);
      if (d < 1) d = 1;
    }
    return d;
  }
  void Reset() { next_ms_ = initial_ms_; }

 private:
  uint64_t initial_ms_;
  uint64_t max_ms_;
  uint64_t factor_;
  uint64_t next_ms_;
  double jitter_;
  std::mt19937_64 rng_;
};

// The RC probers' reconnect schedule: 50 ms doubling to 2 s, each delay
// drawn from [50 %, 100 %] of its step, seeded per prober.
inline Backoff ReconnectBackoff() {
  return Backoff(50, 2000, 2, 0.5, (uint64_t(std::random_device{}()) << 32) | std::random_device{}());
}

}  // namespace rdmascope::probes
