// UD session: one UD QP on the local port, one address handle to the
// target's UD QP, one probe in flight at a time (the next one after the echo
// or the deadline), so RTTs are not skewed by queueing behind earlier probes.
// RTT: from the send's completion timestamp to the echo's when the CQ has
// device timestamps, else from just before ibv_post_send to the echo's poll.
// Probes are solicited; without device timestamps only one send in
// kSignalEvery is signalled (the echo is what is waited for). Each wait spins
// ProberSpin(opts.spin_ns) (adaptive_spin.h) before sleeping.
#include "probes/ud_session.h"

#include <random>

#include "probes/line_socket.h"
#include "probes/probe_clock.h"
#include "probes/probe_wire.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

namespace {
constexpr uint32_t kRecvSlots = 32;
constexpr uint32_t kSendSlots = 16;
constexpr size_t kSlotBytes = kGrhBytes + 64;
constexpr uint64_t kSendTag = 1ull << 63;
constexpr uint32_t kSignalEvery = 8;
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
  auto info = FetchUdInfo(conn, NowNs() + 5000000000ull, o.control_secret);
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
  AdaptiveSpin spin = ProberSpin(o.spin_ns);
  Status s;
  for (uint64_t seq = 0; seq < o.count; ++seq) {
    if ((o.stop && o.stop->load()) || NowNs() >= run_end) break;
    if (!sends_.Room()) {
      RecordError(run, o, DeadlineFailure("SEND", double(o.timeout_ms)));
      broken_ = true;
      break;  // the send queue never drained: nothing more can be sent
    }
    bool signal = false;
    const uint64_t k = sends_.Post(&signal);
    const uint32_t sslot = kRecvSlots + uint32_t(k % kSendSlots);
    uint8_t* tx = buf_.data() + size_t(sslot) * kSlotBytes;
    ProbeMessage m;
    m.seq = seq;
    m.session = session;
    const uint64_t t0 = NowNs();
    m.prober_send_ns = t0;
    EncodeProbe(m, tx);
    ibv_sge sge{reinterpret_cast<uint64_t>(tx), uint32_t(kWireBytes), buf_.lkey()};
    ibv_send_wr wr{};
    wr.wr_id = kSendTag | k;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SOLICITED | (signal ? IBV_SEND_SIGNALED : 0);
    wr.wr.ud.ah = ah_.get();
    wr.wr.ud.remote_qpn = target_.qpn;
    wr.wr.ud.remote_qkey = qkey_;
    ibv_send_wr* bad = nullptr;
    int rc = ibv_post_send(qp_.get(), &wr, &bad);
    if (rc != 0) {
      broken_ = true;
      return ErrnoStatus("ibv_post_send", rc, "UD probe");
    }

    ProbeSample sample;
    bool send_done = !run.device_timestamps;  // only T2 needs this send's completion
    std::optional<uint64_t> send_dev_ns, echo_dev_ns;  // device completion timestamps
    const uint64_t deadline = t0 + o.timeout_ms * 1000000ull;
    while (!(send_done && sample.received)) {
      batch_.clear();
      auto n = cq_->Wait(batch_, 16, deadline, spin.Budget(), o.stop);
      if (!n.ok()) {
        broken_ = true;
        return n.status();
      }
      if (*n == 0) break;  // deadline or stop
      for (const auto& c : batch_) {
        if (c.wr_id & kSendTag) {
          sends_.Completed(c.wr_id & ~kSendTag);
          if ((c.wr_id & ~kSendTag) == k) {
            send_done = true;
            send_dev_ns = c.device_ns;
          }
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
          if (echo && echo->kind == ProbeKind::kEcho && echo->session == session && echo->seq == seq) {
            sample.received = true;
            sample.rtt_us = double(c.poll_ns - t0) / 1e3;
            spin.Observe(c.poll_ns - t0);
            echo_dev_ns = c.device_ns;
            sample.responder_us = double(echo->responder_delay_ns) / 1e3;
          }
        }
        s = PostRecv(slot);
        if (!s.ok()) {
          broken_ = true;
          return s;
        }
      }
    }
    if (!sample.received && Stopping(o)) break;  // cut short by the stop: not a lost probe
    if (sample.received && send_dev_ns && echo_dev_ns && *echo_dev_ns > *send_dev_ns) {
      sample.rtt_us = double(*echo_dev_ns - *send_dev_ns) / 1e3;  // device clock: no host wake-up time
    }
    run.samples.push_back(sample);
    if (broken_) break;  // every further send would only be flushed
    if (o.interval_ms > 0) SleepUntil(t0 + o.interval_ms * 1000000ull, o.stop);
  }
  run.end_wall_ms = WallMs();
  return run;
}

}  // namespace rdmascope::probes
