// Exponential back-off for reconnecting a failed probe target.
//
// Contract: delays are initial, initial*factor, ... capped at max; Reset()
// starts over after a success. Deterministic (no jitter) so tests can check it.
#pragma once

#include <cstdint>

namespace rdmascope::probes {

class Backoff {
 public:
  Backoff(uint64_t initial_ms = 50, uint64_t max_ms = 2000, unsigned factor = 2)
      : initial_ms_(initial_ms ? initial_ms : 1), max_ms_(max_ms < initial_ms_ ? initial_ms_ : max_ms),
        factor_(factor < 1 ? 1 : factor), next_ms_(initial_ms_) {}

  // The delay before the next attempt; advances the schedule.
  uint64_t NextDelayMs() {
    uint64_t d = next_ms_;
    next_ms_ = (next_ms_ > max_ms_ / factor_) ? max_ms_ : next_ms_ * factor_;
    if (next_ms_ > max_ms_) next_ms_ = max_ms_;
    return d;
  }
  void Reset() { next_ms_ = initial_ms_; }

 private:
  uint64_t initial_ms_;
  uint64_t max_ms_;
  uint64_t factor_;
  uint64_t next_ms_;
};

}  // namespace rdmascope::probes
