#include "probes/completion_queue.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>

#include "probes/probe_clock.h"
#include "probes/probe_timing.h"
#include "probes/spin_clock.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

Result<std::unique_ptr<CompletionQueue>> CompletionQueue::Create(ibv_context* ctx, int cqe) {
  std::unique_ptr<CompletionQueue> q(new CompletionQueue());
  q->ctx_ = ctx;
  errno = 0;
  q->channel_ = ibv_create_comp_channel(ctx);
  if (q->channel_ == nullptr) return ErrnoStatus("ibv_create_comp_channel", errno ? errno : ENOMEM);

  ibv_device_attr_ex dev{};
  uint64_t khz = 0;
  if (ibv_query_device_ex(ctx, nullptr, &dev) == 0 && dev.completion_timestamp_mask != 0) {
    khz = dev.hca_core_clock;
    q->ts_mask_ = dev.completion_timestamp_mask;
  }
  // The extended CQ is used only for what it adds here, completion timestamps;
  // without them the classic CQ is simpler and supported by every provider.
  if (khz != 0) {
    ibv_cq_init_attr_ex attr{};
    attr.cqe = uint32_t(cqe);
    attr.channel = q->channel_;
    attr.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
    q->cq_ex_ = ibv_create_cq_ex(ctx, &attr);  // on failure: classic CQ below
  }
  if (q->cq_ex_ != nullptr) {
    q->cq_ = ibv_cq_ex_to_cq(q->cq_ex_);
    q->clock_khz_ = khz;
    if (!q->DeviceClockNow()) q->clock_khz_ = 0;  // no raw clock to take T2 or T4 from
  } else {
    errno = 0;
    q->cq_ = ibv_create_cq(ctx, cqe, nullptr, q->channel_, 0);
    if (q->cq_ == nullptr) return ErrnoStatus("ibv_create_cq", errno ? errno : ENOMEM);
  }
  return q;
}

CompletionQueue::~CompletionQueue() {
  if (cq_ != nullptr) {
    DrainChannel();
    ibv_destroy_cq(cq_);
  }
  if (channel_ != nullptr) ibv_destroy_comp_channel(channel_);
}

std::optional<uint64_t> CompletionQueue::DeviceClockNow() const {
  if (cq_ex_ == nullptr || clock_khz_ == 0) return std::nullopt;
  ibv_values_ex v{};
  v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
  if (ibv_query_rt_values_ex(ctx_, &v) != 0 || !(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK)) return std::nullopt;
  return uint64_t(v.raw_clock.tv_sec) * 1000000000ull + uint64_t(v.raw_clock.tv_nsec);
}

uint64_t CompletionQueue::TicksBetweenNs(uint64_t from, uint64_t to) const {
  return DeviceTicksBetweenNs(from, to, clock_khz_, ts_mask_);
}

uint64_t CompletionQueue::SinceNs(const Completion& c) const {
  if (c.device_ticks && clock_khz_ != 0)
    if (auto now = DeviceClockNow()) return TicksBetweenNs(*c.device_ticks, *now);
  return ResponderDelayNs(c.poll_ns, NowNs());
}

bool CompletionQueue::ArmAllIfUnsolicitedRecv(const std::vector<Completion>& batch) {
  if (!solicited_only_ || !found_without_event_) return false;
  pollfd p{channel_->fd, POLLIN, 0};
  if (::poll(&p, 1, 0) == 1) return false;  // an event is pending: it did wake us, just late
  for (const auto& c : batch) {
    if (c.status == IBV_WC_SUCCESS && (c.opcode & IBV_WC_RECV)) {
      solicited_only_ = false;
      armed_ = false;  // re-arm in the new mode at the next sleep
      return true;
    }
  }
  return false;
}

ibv_cq* CompletionQueue::cq() const { return cq_; }
int CompletionQueue::channel_fd() const { return channel_->fd; }

Status CompletionQueue::DrainChannel() {
  // Consumes and acknowledges a pending event, if any, without blocking.
  pollfd p{channel_->fd, POLLIN, 0};
  while (::poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
    ibv_cq* ev_cq = nullptr;
    void* ev_ctx = nullptr;
    if (ibv_get_cq_event(channel_, &ev_cq, &ev_ctx) != 0) break;
    ibv_ack_cq_events(ev_cq, 1);
    armed_ = false;
  }
  return Status::Ok();
}

Result<int> CompletionQueue::Poll(std::vector<Completion>& out, int max) {
  // The clock is read only once something was found: an empty poll, the
  // common case while spinning, costs no clock read (which is a system call
  // where the kernel's clocksource is not the TSC, as in emulated machines).
  uint64_t now = 0;
  if (cq_ex_ == nullptr) {
    ibv_wc wc[16];
    int total = 0;
    while (total < max) {
      int n = ibv_poll_cq(cq_, std::min(16, max - total), wc);
      if (n < 0) return ErrnoStatus("ibv_poll_cq", -n > 0 ? -n : EIO);
      if (n > 0 && now == 0) now = NowNs();
      for (int i = 0; i < n; ++i) {
        Completion c;
        c.wr_id = wc[i].wr_id;
        c.status = wc[i].status;
        c.opcode = wc[i].opcode;
        c.vendor_err = wc[i].vendor_err;
        c.byte_len = wc[i].byte_len;
        c.qp_num = wc[i].qp_num;
        c.src_qp = wc[i].src_qp;
        c.wc_flags = wc[i].wc_flags;
        c.slid = wc[i].slid;
        c.sl = wc[i].sl;
        c.poll_ns = now;
        out.push_back(c);
      }
      total += n;
      if (n < 16) break;
    }
    return total;
  }
  ibv_poll_cq_attr pattr{};
  int rc = ibv_start_poll(cq_ex_, &pattr);
  if (rc == ENOENT) return 0;
  if (rc != 0) return ErrnoStatus("ibv_start_poll", rc);
  now = NowNs();
  int total = 0;
  do {
    Completion c;
    c.wr_id = cq_ex_->wr_id;
    c.status = cq_ex_->status;
    c.opcode = ibv_wc_read_opcode(cq_ex_);
    c.vendor_err = ibv_wc_read_vendor_err(cq_ex_);
    c.byte_len = ibv_wc_read_byte_len(cq_ex_);
    c.qp_num = ibv_wc_read_qp_num(cq_ex_);
    c.src_qp = ibv_wc_read_src_qp(cq_ex_);
    c.wc_flags = ibv_wc_read_wc_flags(cq_ex_);
    c.slid = uint16_t(ibv_wc_read_slid(cq_ex_));
    c.sl = ibv_wc_read_sl(cq_ex_);
    c.poll_ns = now;
    if (clock_khz_ != 0) c.device_ticks = ibv_wc_read_completion_ts(cq_ex_);
    out.push_back(c);
    ++total;
    if (total >= max) break;
    rc = ibv_next_poll(cq_ex_);
  } while (rc == 0);
  ibv_end_poll(cq_ex_);
  if (rc != 0 && rc != ENOENT) return ErrnoStatus("ibv_next_poll", rc);
  return total;
}

Result<int> CompletionQueue::Wait(std::vector<Completion>& out, int max, uint64_t deadline_ns,
                                  uint64_t spin_ns, const std::atomic<bool>* stop,
                                  int extra_fd, bool* extra_ready) {
  if (extra_ready) *extra_ready = false;
  found_without_event_ = false;
  // Bounded busy poll: at most spin_ns on the spin clock (spin_clock.h, no
  // system call), read only every stride_.polls() empty polls
  // (spin_clock_stride.h), so the spin is polls, not clock reads.
  if (spin_ns != 0) {
    // The spin clock is not the deadline's clock: only a length crosses over.
    const uint64_t now0 = NowNs();
    const uint64_t spin_len = deadline_ns > now0 ? std::min(spin_ns, deadline_ns - now0) : 0;
    uint64_t last = SpinClockNs();
    const uint64_t spin_until = last + spin_len;
    const uint64_t target = SpinClockStride::TargetNs(spin_ns);
    for (uint32_t i = 1;; ++i) {
      auto n = Poll(out, max);
      if (!n.ok() || *n > 0) return n;
      if (i < stride_.polls()) continue;
      i = 0;
      const uint64_t now = SpinClockNs();
      stride_.Adjust(now - last, target);
      last = now;
      if (now >= spin_until) break;
    }
  }
  // Blocking phase. Poll before (re-)arming: after a wake-up the completion
  // is normally there, and finding it costs no ibv_req_notify_cq. Arm, poll
  // once more (closes the race with a completion that came in between), sleep.
  // The deadline is checked only after a poll, so a completion that arrived
  // by the deadline is returned, not reported as silence.
  bool slept_without_event = false;
  for (;;) {
    auto n = Poll(out, max);
    if (n.ok() && *n > 0) found_without_event_ = slept_without_event;
    if (!n.ok() || *n > 0) return n;
    if (stop && stop->load()) return 0;
    if (!armed_) {
      int rc = ibv_req_notify_cq(cq_, solicited_only_ ? 1 : 0);
      if (rc != 0) return ErrnoStatus("ibv_req_notify_cq", rc);
      armed_ = true;
      n = Poll(out, max);
      if (!n.ok() || *n > 0) return n;
    }
    const uint64_t now = NowNs();
    if (now >= deadline_ns) return 0;
    uint64_t wait_ms = (deadline_ns - now + 999999) / 1000000;
    if (stop) wait_ms = std::min<uint64_t>(wait_ms, 100);
    pollfd fds[2] = {{channel_->fd, POLLIN, 0}, {extra_fd, POLLIN, 0}};
    int nfds = extra_fd >= 0 ? 2 : 1;
    int pr = ::poll(fds, nfds, int(wait_ms));
    if (pr < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("poll (completion channel)", errno);
    }
    slept_without_event = pr == 0;
    // A removed device closes the channel: poll reports POLLERR/POLLHUP at
    // once, forever. That ends the wait with an error instead of a busy loop.
    if (pr > 0 && (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) && !(fds[0].revents & POLLIN)) {
      return Status::Error("completion channel closed (poll revents " + std::to_string(fds[0].revents) +
                           "): the device was removed or reset");
    }
    if (pr > 0 && (fds[0].revents & POLLIN)) {
      ibv_cq* ev_cq = nullptr;
      void* ev_ctx = nullptr;
      if (ibv_get_cq_event(channel_, &ev_cq, &ev_ctx) != 0) {
        return ErrnoStatus("ibv_get_cq_event", errno ? errno : EIO);
      }
      ibv_ack_cq_events(ev_cq, 1);
      armed_ = false;
    }
    if (nfds == 2 && pr > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      auto m = Poll(out, max);
      if (!m.ok() || *m > 0) return m;
      if (extra_ready) *extra_ready = true;
      return 0;
    }
  }
}

}  // namespace rdmascope::probes
