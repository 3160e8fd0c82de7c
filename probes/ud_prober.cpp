// UD prober: one UD QP on the local port, one address handle to the target's
// UD QP, one probe in flight at a time (the next one after the echo or the
// deadline), so RTTs are not skewed by queueing behind earlier probes.
// RTT: from the send's completion timestamp to the echo's when the CQ has
// device timestamps, else from just before ibv_post_send to the echo's poll.
// Probes are solicited; without device timestamps only one send in
// kSignalEvery is signalled (the echo is what is waited for). Each wait spins
// ProberSpin(opts.spin_ns) (adaptive_spin.h) before sleeping.
#include <optional>
#include <random>

#include "probes/adaptive_spin.h"
#include "probes/completion_queue.h"
#include "probes/line_socket.h"
#include "probes/probe_clock.h"
#include "probes/probe_wire.h"
#include "probes/prober.h"
#include "probes/send_signal.h"
#include "probes/verbs_error.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

namespace {
constexpr uint32_t kRecvSlots = 32;
constexpr uint32_t kSendSlots = 16;
constexpr size_t kSlotBytes = kGrhBytes + 64;
constexpr uint64_t kSendTag = 1ull << 63;
constexpr uint32_t kSignalEvery = 8;
}  // namespace

Result<ProbeRun> RunUdProbe(const ProberOptions& o) {
  ProbeRun run;
  run.start_wall_ms = WallMs();
  run.transport = "ud";
  auto ctx = OpenDevice(o.device);
  if (!ctx.ok()) return ctx.status();
  auto local = DescribePort(ctx->get(), o.device, o.port, o.gid_index, o.gid_subnet);
  if (!local.ok()) return local.status();
  run.local = *local;
  auto pd = AllocPd(ctx->get());
  if (!pd.ok()) return pd.status();
  auto cq = CompletionQueue::Create(ctx->get(), int(kRecvSlots + kSendSlots + 8));
  if (!cq.ok()) return cq.status();
  run.device_timestamps = (*cq)->has_timestamps();
  auto qp = CreateQp(pd->get(), (*cq)->cq(), (*cq)->cq(), IBV_QPT_UD, kSendSlots, kRecvSlots);
  if (!qp.ok()) return qp.status();
  auto buf = Buffer::Register(pd->get(), kSlotBytes * (kRecvSlots + kSendSlots), IBV_ACCESS_LOCAL_WRITE);
  if (!buf.ok()) return buf.status();
  Status s = UdToRts(qp->get(), o.port, kProbeQkey, 0);
  if (!s.ok()) return s;

  auto post_recv = [&](uint32_t slot) -> Status {
    ibv_sge sge{buf->addr() + uint64_t(slot) * kSlotBytes, uint32_t(kSlotBytes), buf->lkey()};
    ibv_recv_wr wr{};
    wr.wr_id = slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    int rc = ibv_post_recv(qp->get(), &wr, &bad);
    return rc ? ErrnoStatus("ibv_post_recv", rc) : Status::Ok();
  };
  for (uint32_t i = 0; i < kRecvSlots; ++i) {
    s = post_recv(i);
    if (!s.ok()) return s;
  }

  // Learn the target's UD QPN over its control port.
  auto fd = TcpConnect(o.host, o.control_port, 3000);
  if (!fd.ok()) return Status::Error("control port: " + fd.status().message());
  LineConn conn(std::move(fd).value());
  auto info = FetchUdInfo(conn, NowNs() + 5000000000ull, o.control_secret);
  if (!info.ok()) return info.status();
  auto ep = ChooseEndpoint(*info, o.host, *local, o.rail);
  if (!ep.ok()) return ep.status();
  run.target = *ep;
  RemoteEndpoint remote;
  remote.qpn = ep->qpn;
  remote.lid = ep->lid;
  remote.global = local->roce;
  if (remote.global) {
    auto g = GidFromString(ep->gid);
    if (!g.ok()) return g.status();
    remote.gid = *g;
  }
  ibv_ah_attr ah_attr = MakeAhAttr(remote, o.port, local->gid_index, o.probe_class);
  auto ah = CreateAh(pd->get(), &ah_attr);
  if (!ah.ok()) return ah.status();
  run.local_qpn = qp->get()->qp_num;
  run.remote_qpn = remote.qpn;

  const uint64_t session = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  const uint64_t run_end = NowNs() + o.max_duration_ms * 1000000ull;
  // With device timestamps every send is signalled: its completion is T2.
  SendSignaler sends(run.device_timestamps ? 1 : kSignalEvery, kSendSlots);
  AdaptiveSpin spin = ProberSpin(o.spin_ns);
  std::vector<Completion> batch;
  for (uint64_t seq = 0; seq < o.count; ++seq) {
    if ((o.stop && o.stop->load()) || NowNs() >= run_end) break;
    if (!sends.Room()) {
      RecordError(run, o, DeadlineFailure("SEND", double(o.timeout_ms)));
      break;  // the send queue never drained: nothing more can be sent
    }
    bool signal = false;
    const uint64_t k = sends.Post(&signal);
    const uint32_t sslot = kRecvSlots + uint32_t(k % kSendSlots);
    uint8_t* tx = buf.value().data() + size_t(sslot) * kSlotBytes;
    ProbeMessage m;
    m.seq = seq;
    m.session = session;
    const uint64_t t0 = NowNs();
    m.prober_send_ns = t0;
    EncodeProbe(m, tx);
    ibv_sge sge{reinterpret_cast<uint64_t>(tx), uint32_t(kWireBytes), buf->lkey()};
    ibv_send_wr wr{};
    wr.wr_id = kSendTag | k;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SOLICITED | (signal ? IBV_SEND_SIGNALED : 0);
    wr.wr.ud.ah = ah->get();
    wr.wr.ud.remote_qpn = remote.qpn;
    wr.wr.ud.remote_qkey = info->qkey;
    ibv_send_wr* bad = nullptr;
    int rc = ibv_post_send(qp->get(), &wr, &bad);
    if (rc != 0) return ErrnoStatus("ibv_post_send", rc, "UD probe");

    ProbeSample sample;
    bool send_done = !run.device_timestamps;  // only T2 needs this send's completion
    std::optional<uint64_t> send_dev_ns, echo_dev_ns;  // device completion timestamps
    const uint64_t deadline = t0 + o.timeout_ms * 1000000ull;
    while (!(send_done && sample.received)) {
      batch.clear();
      auto n = (*cq)->Wait(batch, 16, deadline, spin.Budget(), o.stop);
      if (!n.ok()) return n.status();
      if (*n == 0) break;  // deadline or stop
      for (const auto& c : batch) {
        if (c.wr_id & kSendTag) {
          sends.Completed(c.wr_id & ~kSendTag);
          if ((c.wr_id & ~kSendTag) == k) {
            send_done = true;
            send_dev_ns = c.device_ns;
          }
          if (c.status != IBV_WC_SUCCESS) {
            RecordError(run, o, WcFailure(c.status, c.vendor_err, "SEND", double(c.poll_ns - t0) / 1e6));
          }
          continue;
        }
        const uint32_t slot = uint32_t(c.wr_id);
        const uint8_t* rx = buf.value().data() + size_t(slot) * kSlotBytes;
        if (c.status == IBV_WC_SUCCESS && c.byte_len >= kGrhBytes + kWireBytes) {
          auto echo = DecodeProbe(rx + kGrhBytes, c.byte_len - kGrhBytes);
          if (echo && echo->kind == ProbeKind::kEcho && echo->session == session && echo->seq == seq) {
            sample.received = true;
            sample.rtt_us = double(c.poll_ns - t0) / 1e3;
            spin.Observe(c.poll_ns - t0);
            echo_dev_ns = c.device_ns;
            sample.responder_us = double(echo->responder_delay_ns) / 1e3;
          }
        }
        s = post_recv(slot);
        if (!s.ok()) return s;
      }
    }
    if (!sample.received && Stopping(o)) break;  // cut short by the stop: not a lost probe
    if (sample.received && send_dev_ns && echo_dev_ns && *echo_dev_ns > *send_dev_ns) {
      sample.rtt_us = double(*echo_dev_ns - *send_dev_ns) / 1e3;  // device clock: no host wake-up time
    }
    run.samples.push_back(sample);
    if (o.interval_ms > 0) SleepUntil(t0 + o.interval_ms * 1000000ull, o.stop);
  }
  run.end_wall_ms = WallMs();
  return run;
}

}  // namespace rdmascope::probes
