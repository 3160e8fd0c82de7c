// How long to busy-poll a CQ before sleeping on its completion channel,
// adapted to the traffic seen so far.
//
// Contract: Budget() is clamp(multiplier x EWMA(observed), floor, cap) once
// something was observed, and `first` before that (the first wait
// calibrates). With `sparse_to_floor`, an EWMA whose multiple exceeds `cap` gives
// `floor` instead of `cap`: when the next event is further away than the whole
// budget, spinning for it would burn CPU and catch nothing. The EWMA weights
// each new observation 1/8. cap == 0 disables spinning entirely.
#pragma once

#include <algorithm>
#include <cstdint>

namespace rdmascope::probes {

class AdaptiveSpin {
 public:
  AdaptiveSpin(uint64_t multiplier, uint64_t floor_ns, uint64_t cap_ns, uint64_t first_ns,
               bool sparse_to_floor)
      : mult_(multiplier), floor_(std::min(floor_ns, cap_ns)), cap_(cap_ns),
        first_(std::min(first_ns, cap_ns)), sparse_to_floor_(sparse_to_floor) {}

  uint64_t Budget() const {
    if (cap_ == 0) return 0;
    if (!seen_) return first_;
    const uint64_t want = ewma_ns_ * mult_;
    if (want > cap_) return sparse_to_floor_ ? floor_ : cap_;
    return std::max(want, floor_);
  }

  void Observe(uint64_t ns) {
    ewma_ns_ = seen_ ? ewma_ns_ - ewma_ns_ / 8 + ns / 8 : ns;
    seen_ = true;
  }

  uint64_t ewma_ns() const { return ewma_ns_; }

 private:
  uint64_t mult_, floor_, cap_, first_;
  bool sparse_to_floor_;
  bool seen_ = false;
  uint64_t ewma_ns_ = 0;
};

}  // namespace rdmascope::probes

namespace rdmascope::probes {

// The responders' hot window after each completion: clamp(2 x EWMA
// inter-arrival, min_ns, max_ns), and min_ns when probes come further apart
// than max_ns. max_ns == 0: never spin (sleep on the channel at once).
struct ResponderSpin {
  uint64_t min_ns = 200000;
  uint64_t max_ns = 5000000;
  AdaptiveSpin Make() const { return AdaptiveSpin(2, min_ns, max_ns, min_ns, true); }
};

// The probers' spin before sleeping: 3 x EWMA RTT when that fits in cap_ns,
// else none (a round trip longer than the whole budget is slept through:
// spinning part of it burns CPU and still pays the wake-up); the first probe
// spins all of cap_ns (it calibrates the EWMA).
inline AdaptiveSpin ProberSpin(uint64_t cap_ns) { return AdaptiveSpin(3, 0, cap_ns, cap_ns, true); }

}  // namespace rdmascope::probes
