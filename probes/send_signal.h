// Selective signalling of sends: only every Nth send asks for a completion.
//
// Contract: a QP completes its sends in order, so the completion of the send
// posted as number k (its wr_id carries k, see Post()) retires every send up
// to k; Outstanding() counts sends not yet known complete and must stay
// within the send queue's depth (callers check Room() before posting). With
// n == 1 every send is signalled. Error completions (flushes included) carry
// their own post number, so they retire correctly too.
#pragma once

#include <cstdint>

namespace rdmascope::probes {

class SendSignaler {
 public:
  SendSignaler(uint32_t every_n, uint32_t depth) : n_(every_n ? every_n : 1), depth_(depth) {}

  // Whether there is room in the send queue for one more send.
  bool Room() const { return Outstanding() < depth_; }
  // Registers one post; returns its number (for the wr_id) and sets *signal.
  uint64_t Post(bool* signal) {
    const uint64_t k = posted_++;
    *signal = (posted_ % n_) == 0 || Outstanding() + n_ > depth_;
    return k;
  }
  // A completion for the send numbered k arrived (signalled or failed).
  void Completed(uint64_t k) {
    if (k + 1 > retired_ && k < posted_) retired_ = k + 1;
  }
  // Every send posted so far is gone (its QP was reset): none is in flight.
  void RetireAll() { retired_ = posted_; }
  uint64_t Outstanding() const { return posted_ - retired_; }
  // True while send number k may still be in flight (its buffers in use).
  bool InFlight(uint64_t k) const { return k >= retired_ && k < posted_; }

 private:
  uint32_t n_, depth_;
  uint64_t posted_ = 0;
  uint64_t retired_ = 0;
};

}  // namespace rdmascope::probes
