// UD session: one UD QP on the local port, one address handle to the
// target's UD QP. Probes leave every interval_ms (interval 0: the next after
// the previous echo or deadline); a probe whose echo is late does not hold
// the next one back, so a lossy or dead target costs a round one deadline,
// not one per lost probe. At most kMaxInFlight await their echo.
// RTT: from the send's completion timestamp to the echo's when the CQ has
// device timestamps, else from just before ibv_post_send to the echo's poll.
// Probes are solicited; without device timestamps only one send in
// kSignalEvery is signalled (the echo is what is waited for). Each wait spins
// ProberSpin(opts.spin_ns) (adaptive_spin.h) before sleeping.
#include "probes/ud_session.h"

#include <algorithm>
#include <random>

#include "probes/line_socket.h"
#include "probes/probe_clock.h"
#include "probes/probe_wire.h"
#include "probes/qp_setup.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

namespace {
constexpr uint32_t kRecvSlots = 32;
constexpr uint32_t kSendSlots = 16;
constexpr size_t kSlotBytes = kGrhBytes + 64;
constexpr uint64_t kSendTag = 1ull << 63;
constexpr uint32_t kSignalEvery = 8;
constexpr size_t kMaxInFlight = 8;  // probes awaiting their echo (< kSendSlots, kRecvSlots)
}  // namespace

UdSession::UdSession(std::shared_ptr<RailDevice> dev)
    : dev_(std::move(dev)), sends_(kSignalEvery, kSendSlots) {}

UdSession::~UdSession() {
  ah_.reset();
  qp_.reset();
}

Result<std::unique_ptr<UdSession>> UdSession::Open(std::shared_ptr<RailDevice> dev) {
  std::unique_ptr<UdSession> s(new UdSession(std::move(dev)));
  ibv_context* ctx = s->dev_->ctx.get();
  ibv_pd* pd = s->dev_->pd.get();
  s->born_seq_ = s->dev_->EventSeq();  // events numbered lower are of earlier objects
  auto cq = CompletionQueue::Create(ctx, int(kRecvSlots + kSendSlots + 8));
  if (!cq.ok()) return cq.status();
  s->cq_ = std::move(cq).value();
  // With device timestamps every send is signalled: its completion is T2.
  if (s->cq_->has_timestamps()) s->sends_ = SendSignaler(1, kSendSlots);
  auto qp = CreateQp(pd, s->cq_->cq(), s->cq_->cq(), IBV_QPT_UD, kSendSlots, kRecvSlots);
  if (!qp.ok()) return qp.status();
  s->qp_ = std::move(qp).value();
  auto buf = Buffer::Register(pd, kSlotBytes * (kRecvSlots + kSendSlots), IBV_ACCESS_LOCAL_WRITE);
  if (!buf.ok()) return buf.status();
  s->buf_ = std::move(buf).value();
  Status st = UdToRts(s->qp_.get(), s->dev_->local.port, kProbeQkey, 0);
  if (!st.ok()) return st;
  for (uint32_t i = 0; i < kRecvSlots; ++i) {
    st = s->PostRecv(i);
    if (!st.ok()) return st;
  }
  return s;
}

Status UdSession::PostRecv(uint32_t slot) { return PostRecvSlot(qp_.get(), buf_, slot, kSlotBytes, "UD prober"); }

Status UdSession::Resolve(const ProberOptions& o) {
  const LocalPort& local = dev_->local;
  auto fd = TcpConnect(o.host, o.control_port, 3000);
  if (!fd.ok()) return Status::Error("control port: " + fd.status().message());
  LineConn conn(std::move(fd).value());
  auto info = FetchUdInfo(conn, NowNs() + 5000000000ull, o.control_secret, o.control_strict);
  if (!info.ok()) return info.status();
  auto ep = ChooseEndpoint(*info, o.host, local, o.rail);
  if (!ep.ok()) return ep.status();
  RemoteEndpoint remote;
  remote.qpn = ep->qpn;
  remote.lid = ep->lid;
  remote.global = local.roce;
  if (remote.global) {
    auto g = GidFromString(ep->gid);
    if (!g.ok()) return g.status();
    remote.gid = *g;
  }
  ibv_ah_attr ah_attr = MakeAhAttr(remote, local.port, local.gid_index, o.probe_class);
  auto ah = CreateAh(dev_->pd.get(), &ah_attr);
  if (!ah.ok()) return ah.status();
  ah_ = std::move(ah).value();
  target_ = *ep;
  qkey_ = info->qkey;
  return Status::Ok();
}

Result<ProbeRun> UdSession::Run(const ProberOptions& o) {
  ProbeRun run;
  run.start_wall_ms = WallMs();
  run.transport = "ud";
  run.local = dev_->local;
  run.target = target_;
  run.device_timestamps = cq_->has_timestamps();
  if (!ah_) return Status::Error("UD probe: the target's endpoint is not known (ud_info never answered)");
  run.local_qpn = qp_->qp_num;
  run.remote_qpn = target_.qpn;
  const uint64_t session = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  const uint64_t run_end = NowNs() + o.max_duration_ms * 1000000ull;
  const uint64_t burst = std::max<uint64_t>(1, o.burst);
  const uint64_t gap_ns = o.interval_ms * 1000000ull;  // the average spacing of probes
  const uint64_t spacing_ns = gap_ns * burst;          // between burst starts
  const uint64_t timeout_ns = o.timeout_ms * 1000000ull;
  if (!spin_ || spin_ns_ != o.spin_ns) spin_ = ProberSpin(o.spin_ns), spin_ns_ = o.spin_ns;  // kept across runs
  AdaptiveSpin& spin = *spin_;

  std::vector<UdPending> pending;  // sent and not finished, oldest (earliest deadline) first
  // A probe is finished when its echo (and, with device timestamps, its
  // send's completion) is in, or at its deadline: lost.
  auto finish = [&](const UdPending& p) {
    ProbeSample sample = p.sample;
    if (sample.received && p.send_ticks && p.echo_ticks) {
      const uint64_t ns = cq_->TicksBetweenNs(*p.send_ticks, *p.echo_ticks);
      if (ns > 0) sample.rtt_us = double(ns) / 1e3;  // device clock: no host wake-up time
    }
    run.samples.push_back(sample);
  };
  uint64_t seq = 0, next_send = NowNs(), no_room_since = 0, last_sent = 0;
  while (true) {
    const uint64_t now = NowNs();
    const bool more = !broken_ && !Stopping(o) && seq < o.count && now < run_end;
    // With a spacing, probes (bursts) leave on time whether or not earlier
    // echoes are in; without one, the next leaves after the previous is
    // finished. Inside a burst the next leaves when the previous is finished
    // or one average spacing after it left, whichever comes first: a lost
    // probe holds its burst up by that spacing, not by its deadline.
    const bool in_burst = seq % burst != 0;
    const bool may_send = more && pending.size() < kMaxInFlight &&
                          (pending.empty() || (gap_ns > 0 && (in_burst || spacing_ns > 0)));
    const uint64_t due = !in_burst ? next_send : pending.empty() ? now : last_sent + gap_ns;
    if (may_send && now >= due) {
      if (sends_.Room()) {
        no_room_since = 0;
        Result<UdPending> sent = Send(seq, session, o);
        if (!sent.ok()) return sent.status();
        pending.push_back(*sent);
        pending.back().sample.primer = burst > 1 && !in_burst;
        if (!in_burst) next_send = sent->t0 + spacing_ns;
        last_sent = sent->t0;
        ++seq;
        continue;
      }
      if (no_room_since == 0) no_room_since = now;
      if (now - no_room_since >= timeout_ns) {
        RecordError(run, o, DeadlineFailure("SEND", double(o.timeout_ms)));
        broken_ = true;  // the send queue never drained: nothing more can be sent
      }
    }
    if (pending.empty() && (!more || broken_)) break;
    uint64_t wake = pending.empty() ? run_end : pending.front().deadline;
    if (may_send) wake = std::min<uint64_t>(wake, no_room_since ? now + 1000000ull : due);
    if (pending.empty() && no_room_since == 0) {
      SleepUntil(wake, o.stop);
      continue;
    }
    batch_.clear();
    auto n = cq_->Wait(batch_, 16, wake, spin.Budget(), o.stop);
    if (!n.ok()) {
      broken_ = true;
      return n.status();
    }
    for (const auto& c : batch_) {
      if (c.wr_id & kSendTag) {
        const uint64_t k = c.wr_id & ~kSendTag;
        sends_.Completed(k);
        uint64_t t0 = now;
        for (UdPending& p : pending)
          if (p.send_k == k) p.send_done = true, p.send_ticks = c.device_ticks, t0 = p.t0;
        if (c.status != IBV_WC_SUCCESS) {
          broken_ = true;
          RecordError(run, o, WcFailure(c.status, c.vendor_err, "SEND", double(c.poll_ns - t0) / 1e6));
        }
        continue;
      }
      const uint32_t slot = uint32_t(c.wr_id);
      const uint8_t* rx = buf_.data() + size_t(slot) * kSlotBytes;
      if (c.status != IBV_WC_SUCCESS) {
        broken_ = true;  // a failed receive: the QP is in the error state
        continue;
      }
      if (c.byte_len >= kGrhBytes + kWireBytes) {
        auto echo = DecodeProbe(rx + kGrhBytes, c.byte_len - kGrhBytes);
        if (echo && echo->kind == ProbeKind::kEcho && echo->session == session)
          for (UdPending& p : pending)
            if (p.seq == echo->seq && !p.sample.received) {
              p.sample.received = true;
              p.sample.rtt_us = double(c.poll_ns - p.t0) / 1e3;
              if (!p.sample.primer) spin.Observe(c.poll_ns - p.t0);  // a primer's RTT includes the wake-up
              p.echo_ticks = c.device_ticks;
              p.sample.responder_us = double(echo->responder_delay_ns) / 1e3;
            }
      }
      Status s = PostRecv(slot);
      if (!s.ok()) {
        broken_ = true;
        return s;
      }
    }
    const uint64_t after = NowNs();
    for (size_t i = 0; i < pending.size();) {
      const UdPending& p = pending[i];
      const bool done = p.sample.received && p.send_done;
      const bool expired = after >= p.deadline || broken_;
      if (!done && !expired) {
        ++i;
        continue;
      }
      // Cut short by the stop: not a lost probe.
      if (p.sample.received || !Stopping(o)) finish(p);
      pending.erase(pending.begin() + std::ptrdiff_t(i));
    }
    if (Stopping(o)) {
      for (const UdPending& p : pending)
        if (p.sample.received) finish(p);
      break;
    }
  }
  run.end_wall_ms = WallMs();
  return run;
}

Result<UdPending> UdSession::Send(uint64_t seq, uint64_t session, const ProberOptions& o) {
  bool signal = false;
  const uint64_t k = sends_.Post(&signal);
  const uint32_t sslot = kRecvSlots + uint32_t(k % kSendSlots);
  uint8_t* tx = buf_.data() + size_t(sslot) * kSlotBytes;
  ProbeMessage m;
  m.seq = seq;
  m.session = session;
  UdPending p;
  p.seq = seq;
  p.send_k = k;
  p.t0 = NowNs();
  p.deadline = p.t0 + o.timeout_ms * 1000000ull;
  p.send_done = !cq_->has_timestamps();  // only T2 needs the send's completion
  m.prober_send_ns = p.t0;
  EncodeProbe(m, tx);
  ibv_sge sge{reinterpret_cast<uint64_t>(tx), uint32_t(kWireBytes), buf_.lkey()};
  ibv_send_wr wr = UdSendWr(kSendTag | k, &sge, signal, ah_.get(), target_.qpn, qkey_);
  ibv_send_wr* bad = nullptr;
  int rc = ibv_post_send(qp_.get(), &wr, &bad);
  if (rc != 0) {
    broken_ = true;
    return ErrnoStatus("ibv_post_send", rc, "UD probe");
  }
  return p;
}

}  // namespace rdmascope::probes
