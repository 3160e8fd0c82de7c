// How long to busy-poll a CQ before sleeping on its completion channel,
// adapted to the traffic seen so far.
//
// Contract: Budget() is clamp(multiplier x typical, floor, cap) once
// something was observed, and `first` before that (the first wait
// calibrates). `typical` is a running median of the observations: each one
// moves it 1/16 of its value up or down toward itself, so a rare stall (an
// emulated machine's hiccup, one lost probe) moves it 6 % instead of
// dragging a mean over the cap, and a lasting change (5 ms more delay) is
// followed within a few dozen observations. With sparse_mult > 0,
// sparse_mult x typical > cap gives `floor` instead: when the next event is
// expected further away than the whole budget, spinning for it would burn
// CPU and catch nothing (sparse_mult 0: never). cap == 0 disables spinning.
#pragma once

#include <algorithm>
#include <cstdint>

namespace rdmascope::probes {

class AdaptiveSpin {
 public:
  AdaptiveSpin(uint64_t multiplier, uint64_t floor_ns, uint64_t cap_ns, uint64_t first_ns,
               uint64_t sparse_mult)
      : mult_(multiplier), floor_(std::min(floor_ns, cap_ns)), cap_(cap_ns),
        first_(std::min(first_ns, cap_ns)), sparse_mult_(sparse_mult) {}

  uint64_t Budget() const {
    if (cap_ == 0) return 0;
    if (!seen_) return first_;
    if (sparse_mult_ != 0 && typical_ns_ * sparse_mult_ > cap_) return floor_;
    return std::clamp(typical_ns_ * mult_, floor_, cap_);
  }

  // The first observation counts at most twice the cap: one long gap (the
  // first probe after an idle spell) must not take a hundred to forget.
  void Observe(uint64_t ns) {
    if (!seen_) typical_ns_ = cap_ ? std::min(ns, 2 * cap_) : ns;
    else if (ns > typical_ns_) typical_ns_ += std::max<uint64_t>(typical_ns_ / 16, 1);
    else if (ns < typical_ns_) typical_ns_ -= typical_ns_ / 16;
    seen_ = true;
  }

  uint64_t typical_ns() const { return typical_ns_; }

 private:
  uint64_t mult_, floor_, cap_, first_, sparse_mult_;
  bool seen_ = false;
  uint64_t typical_ns_ = 0;
};

}  // namespace rdmascope::probes

namespace rdmascope::probes {

// The responders' hot window after each completion: clamp(2 x typical
// inter-arrival, min_ns, max_ns), and min_ns when probes come further apart
// than max_ns / 2. max_ns == 0: never spin (sleep on the channel at once).
struct ResponderSpin {
  uint64_t min_ns = 200000;
  uint64_t max_ns = 5000000;
  AdaptiveSpin Make() const { return AdaptiveSpin(2, min_ns, max_ns, min_ns, 2); }
};

// The probers' spin before sleeping: 3 x the typical RTT, at most cap_ns;
// none when the typical RTT itself is over cap_ns (a round trip longer than
// the whole budget is slept through: spinning part of it burns CPU and still
// pays the wake-up). The first probe spins all of cap_ns (it calibrates).
inline AdaptiveSpin ProberSpin(uint64_t cap_ns) { return AdaptiveSpin(3, 0, cap_ns, cap_ns, 1); }

}  // namespace rdmascope::probes
