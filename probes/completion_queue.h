// A completion queue with its own completion channel: a bounded busy poll,
// then ibv_req_notify_cq + poll() on the channel fd.
//
// Contract: Create() makes an extended CQ (ibv_create_cq_ex) that reports
// completion timestamps when the device offers them (completion_timestamp_mask
// != 0 and a known hca_core_clock), and a classic ibv_create_cq CQ otherwise.
// Wait() never blocks past its deadline and returns early when *stop becomes
// true (checked at least every 100 ms) or when `extra_fd` becomes readable.
// All channel events are acknowledged before destruction. Wait() polls before
// it (re-)arms, so a wake-up whose completion is already there costs no
// ibv_req_notify_cq; with set_solicited_only(true) it arms for solicited
// completions (and, per the verbs spec, failed receives) only, so the
// peer's unsolicited traffic and our own send completions wake nobody.
// Device timestamps stay device ticks: a difference is taken only against
// another tick of the same device (a completion timestamp, or the raw clock
// read now with ibv_query_rt_values_ex), never against host time
// (probes/probe_timing.h). A CQ has timestamps only when the raw clock reads.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/status.h"
#include "probes/spin_clock_stride.h"

namespace rdmascope::probes {

// One work completion, copied out of the CQ.
struct Completion {
  uint64_t wr_id = 0;
  int status = 0;          // enum ibv_wc_status
  int opcode = 0;          // enum ibv_wc_opcode (valid for successful completions)
  uint32_t vendor_err = 0;
  uint32_t byte_len = 0;
  uint32_t qp_num = 0;
  uint32_t src_qp = 0;     // UD: the sender's QPN
  uint32_t wc_flags = 0;
  uint16_t slid = 0;
  uint8_t sl = 0;
  uint64_t poll_ns = 0;                 // NowNs() when polled
  std::optional<uint64_t> device_ticks;  // the completion timestamp, in device ticks
};

class CompletionQueue {
 public:
  static Result<std::unique_ptr<CompletionQueue>> Create(ibv_context* ctx, int cqe);
  ~CompletionQueue();
  CompletionQueue(const CompletionQueue&) = delete;
  CompletionQueue& operator=(const CompletionQueue&) = delete;

  ibv_cq* cq() const;
  bool has_timestamps() const { return clock_khz_ != 0; }
  int channel_fd() const;
  void set_solicited_only(bool v) { solicited_only_ = v; }
  bool solicited_only() const { return solicited_only_; }
  // True when the last Wait() returned completions found by the poll after a
  // sleep that ended without a channel event: they arrived and woke nobody
  // (with solicited_only: the sender did not set the solicited bit).
  bool found_without_event() const { return found_without_event_; }
  // With solicited_only: when the last Wait() found a successful receive
  // that woke nobody (its sender did not set the solicited bit, e.g. an older
  // prober), arms for every completion from now on and returns true (once).
  bool ArmAllIfUnsolicitedRecv(const std::vector<Completion>& batch);

  // The device's raw clock now, in the ticks of its completion timestamps;
  // nullopt without timestamps or when the read fails.
  std::optional<uint64_t> DeviceClockNow() const;
  // The ns from device tick `from` to device tick `to` (DeviceTicksBetweenNs
  // at this device's rate and mask).
  uint64_t TicksBetweenNs(uint64_t from, uint64_t to) const;
  // The time since receive completion `c` in one clock (T4 - T3 of a
  // responder, T4 being now): device ticks when `c` has a timestamp and the
  // raw clock reads, else host time since the poll that found `c`.
  uint64_t SinceNs(const Completion& c) const;

  // Appends up to `max` completions to `out`; returns how many.
  Result<int> Poll(std::vector<Completion>& out, int max);

  // Waits for at least one completion until `deadline_ns` (NowNs() clock).
  // Spins for at most `spin_ns` first. Returns the number appended (0: the
  // deadline passed, stop was set, or extra_fd became readable; *extra_ready
  // tells the last case).
  Result<int> Wait(std::vector<Completion>& out, int max, uint64_t deadline_ns,
                   uint64_t spin_ns, const std::atomic<bool>* stop = nullptr,
                   int extra_fd = -1, bool* extra_ready = nullptr);

 private:
  CompletionQueue() = default;
  Status DrainChannel();

  ibv_comp_channel* channel_ = nullptr;
  ibv_cq* cq_ = nullptr;          // valid for both kinds
  ibv_cq_ex* cq_ex_ = nullptr;    // set when created with ibv_create_cq_ex
  uint64_t clock_khz_ = 0;        // nonzero when completions carry timestamps
  bool armed_ = false;
  bool solicited_only_ = false;
  bool found_without_event_ = false;
  SpinClockStride stride_;        // empty polls between clock reads while spinning
  ibv_context* ctx_ = nullptr;
  uint64_t ts_mask_ = 0;          // completion_timestamp_mask
};

}  // namespace rdmascope::probes
