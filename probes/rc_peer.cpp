#include "probes/rc_peer.h"

#include <cstring>
#include <random>

#include "probes/control_seal.h"
#include "probes/probe_clock.h"
#include "probes/probe_wire.h"
#include "probes/qp_setup.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

namespace {
constexpr uint32_t kRecvSlots = 16;
constexpr size_t kSlotBytes = 64;
constexpr uint32_t kSendSlot = kRecvSlots;       // then the READ target slot
constexpr uint32_t kReadSlot = kRecvSlots + 1;
constexpr uint64_t kSendTag = 1ull << 62;
constexpr uint64_t kReadTag = 1ull << 63;
constexpr uint64_t kTagMask = kSendTag | kReadTag;
constexpr uint32_t kSendDepth = 16;
constexpr uint32_t kSignalEvery = 8;
}  // namespace

Result<RcSetup> ExchangeRcSetup(LineConn& conn, const ProberOptions& o, const LocalPort& local,
                                RcConnectRequest req, uint64_t deadline) {
  ControlSeal seal;  // the authenticated session's requests and replies
  auto info = FetchUdInfo(conn, deadline, o.control_secret, o.control_strict, &seal);
  if (!info.ok()) return info.status();
  auto ep = ChooseEndpoint(*info, o.host, local, o.rail);
  if (!ep.ok()) return ep.status();
  req.target_gid = ep->gid;
  Status s = WriteSealed(conn, seal, EncodeRcConnectRequest(req), deadline);
  if (!s.ok()) return Status::Error("control port (rc_connect): " + s.message());
  auto line = ReadSealed(conn, seal, deadline, o.stop);
  if (!line.ok()) return Status::Error("control port (rc_connect): " + line.status().message());
  auto rep = ParseRcConnectReply(*line);
  if (!rep.ok()) return rep.status();
  return RcSetup{*ep, *rep};
}

RcPeer::RcPeer() : sends_(kSignalEvery, kSendDepth), spin_(ProberSpin(0)) {}

Result<std::unique_ptr<RcPeer>> RcPeer::Connect(ibv_context* ctx, ibv_pd* pd,
                                                const LocalPort& local,
                                                const ProberOptions& o,
                                                UdEndpointInfo* target,
                                                const std::string& session) {
  const uint64_t deadline = NowNs() + 5000000000ull;
  std::unique_ptr<RcPeer> p(new RcPeer());
  p->spin_ = ProberSpin(o.spin_ns);
  auto cq = CompletionQueue::Create(ctx, int(kRecvSlots + 8));
  if (!cq.ok()) return cq.status();
  p->cq_ = std::move(cq).value();
  auto qp = CreateQp(pd, p->cq_->cq(), p->cq_->cq(), IBV_QPT_RC, kSendDepth, kRecvSlots);
  if (!qp.ok()) return qp.status();
  p->qp_ = std::move(qp).value();
  auto buf = Buffer::Register(pd, kSlotBytes * (kRecvSlots + 2), IBV_ACCESS_LOCAL_WRITE);
  if (!buf.ok()) return buf.status();
  p->buf_ = std::move(buf).value();
  Status s = RcToInit(p->qp_.get(), local.port, 0);
  if (!s.ok()) return s;
  for (uint32_t i = 0; i < kRecvSlots; ++i) {
    s = p->PostRecv(i);
    if (!s.ok()) return s;
  }

  auto fd = TcpConnect(o.host, o.control_port, 3000);
  if (!fd.ok()) return Status::Error("control port: " + fd.status().message());
  p->conn_ = std::make_unique<LineConn>(std::move(fd).value());
  RcConnectRequest req;
  req.prober.qpn = p->qp_->qp_num;
  req.prober.psn = std::random_device{}() & 0xffffff;
  req.prober.lid = local.lid;
  req.prober.gid = local.gid;
  req.prober.global = local.roce;
  req.prober.mtu_bytes = MtuBytes(local.active_mtu);
  req.tuning = o.tuning;
  req.probe_class = o.probe_class;
  req.session = session;
  auto setup = ExchangeRcSetup(*p->conn_, o, local, req, deadline);
  if (!setup.ok()) return setup.status();
  if (target) *target = setup->target;
  const RcConnectReply* rep = &setup->reply;
  p->reply_ = *rep;
  RemoteEndpoint remote = rep->responder;
  remote.mtu_bytes = std::min(remote.mtu_bytes, MtuBytes(local.active_mtu));
  s = RcToRtr(p->qp_.get(), local.port, local.gid_index, remote, o.tuning, o.probe_class);
  if (!s.ok()) return s;
  s = RcToRts(p->qp_.get(), req.prober.psn, o.tuning);
  if (!s.ok()) return s;
  // An agent that names an idle timeout does not tie its QP to the control
  // connection: holding it would only cost the agent a socket.
  if (rep->idle_timeout_ms != 0) p->conn_.reset();
  return p;
}

RcPeer::~RcPeer() {
  qp_.reset();    // QP before its CQ and MR
  conn_.reset();  // an older agent frees its QP when this closes
}

Status RcPeer::PostRecv(uint32_t slot) { return PostRecvSlot(qp_.get(), buf_, slot, kSlotBytes, "RC prober"); }

const char* RcPeer::OpName(uint64_t wr_id) const {
  if (wr_id & kReadTag) return "RDMA_READ";
  if (wr_id & kSendTag) return "SEND";
  return "RECV";
}

void RcPeer::RecordFailure(const Completion& c, uint64_t t0, const ProberOptions& o,
                           ProbeRun& run) {
  if (failed_ && c.status == IBV_WC_WR_FLUSH_ERR) {
    ++run.flushed;
    return;
  }
  failed_ = true;
  RecordError(run, o, WcFailure(c.status, c.vendor_err, OpName(c.wr_id),
                                 double(c.poll_ns - t0) / 1e6));
}

bool RcPeer::PingPong(uint64_t seq, uint64_t timeout_ns, const ProberOptions& o, ProbeRun& run,
                      ProbeSample& sample) {
  if (!sends_.Room()) {
    RecordError(run, o, ConnectFailure("RC probe: the send queue is full (no send completion came back)"));
    return false;
  }
  uint8_t* tx = buf_.data() + size_t(kSendSlot) * kSlotBytes;
  ProbeMessage m;
  m.seq = seq;
  // T2 in the device's clock too when its completions carry timestamps: an
  // RC send's own completion comes with the ACK, so the raw clock read just
  // before the post stands for it (host time stays for deadlines and spin).
  const std::optional<uint64_t> t2_ticks = cq_->DeviceClockNow();
  const uint64_t t0 = NowNs();
  m.prober_send_ns = t0;
  EncodeProbe(m, tx);
  bool signal = false;
  ibv_sge sge{reinterpret_cast<uint64_t>(tx), uint32_t(kWireBytes), buf_.lkey()};
  ibv_send_wr wr{};
  wr.wr_id = kSendTag | sends_.Post(&signal);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SOLICITED | (signal ? IBV_SEND_SIGNALED : 0);
  ibv_send_wr* bad = nullptr;
  int rc = ibv_post_send(qp_.get(), &wr, &bad);
  if (rc != 0) {
    RecordError(run, o, ConnectFailure(ErrnoMessage("ibv_post_send", rc, "RC probe")));
    return false;
  }
  const uint64_t deadline = t0 + timeout_ns;
  std::vector<Completion> batch;
  while (!sample.received) {
    batch.clear();
    auto n = cq_->Wait(batch, 16, deadline, spin_.Budget(), o.stop);
    if (!n.ok()) {
      RecordError(run, o, ConnectFailure(n.status().message()));
      return false;
    }
    if (*n == 0) {
      if (o.stop && o.stop->load()) return false;
      RecordError(run, o, DeadlineFailure("RECV", double(NowNs() - t0) / 1e6));
      return false;
    }
    for (const auto& c : batch) {
      if (c.wr_id & kTagMask) sends_.Completed(c.wr_id & ~kTagMask);
      if (c.status != IBV_WC_SUCCESS) {
        RecordFailure(c, t0, o, run);
        continue;
      }
      if (c.wr_id & kTagMask) continue;
      const uint32_t slot = uint32_t(c.wr_id);
      auto echo = DecodeProbe(buf_.data() + size_t(slot) * kSlotBytes, c.byte_len);
      if (echo && echo->seq == seq) {
        sample.received = true;
        sample.rtt_us = double(c.poll_ns - t0) / 1e3;
        if (t2_ticks && c.device_ticks)  // device clock: no host wake-up time
          if (const uint64_t ns = cq_->TicksBetweenNs(*t2_ticks, *c.device_ticks); ns > 0) sample.rtt_us = double(ns) / 1e3;
        if (echo->kind == ProbeKind::kEcho) sample.responder_us = double(echo->responder_delay_ns) / 1e3;
        if (!sample.primer) spin_.Observe(c.poll_ns - t0);  // a primer's RTT includes the peer's wake-up
      }
      if (!PostRecv(slot).ok()) failed_ = true;
    }
    if (failed_) return false;
  }
  return true;
}

bool RcPeer::Read(uint64_t timeout_ns, const ProberOptions& o, ProbeRun& run, ProbeSample& sample) {
  uint8_t* dst = buf_.data() + size_t(kReadSlot) * kSlotBytes;
  ibv_sge sge{reinterpret_cast<uint64_t>(dst), std::min<uint32_t>(reply_.read_len, kSlotBytes),
              buf_.lkey()};
  ibv_send_wr wr{};
  if (!sends_.Room()) {
    RecordError(run, o, ConnectFailure("RDMA READ: the send queue is full (no send completion came back)"));
    return false;
  }
  bool signal = false;
  const uint64_t k = sends_.Post(&signal);  // always signalled: its completion is the measurement
  wr.wr_id = kReadTag | k;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_READ;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = reply_.read_addr;
  // Self-test: a key that cannot be the registered one (flip every bit).
  wr.wr.rdma.rkey = o.test_bad_rkey ? ~reply_.read_rkey : reply_.read_rkey;
  const uint64_t t0 = NowNs();
  ibv_send_wr* bad = nullptr;
  int rc = ibv_post_send(qp_.get(), &wr, &bad);
  if (rc != 0) {
    RecordError(run, o, ConnectFailure(ErrnoMessage("ibv_post_send", rc, "RDMA READ")));
    return false;
  }
  std::vector<Completion> batch;
  for (;;) {
    batch.clear();
    auto n = cq_->Wait(batch, 16, t0 + timeout_ns, spin_.Budget(), o.stop);
    if (!n.ok() || *n == 0) {
      if (o.stop && o.stop->load()) return false;
      RecordError(run, o, n.ok() ? DeadlineFailure("RDMA_READ", double(NowNs() - t0) / 1e6)
                                  : ConnectFailure(n.status().message()));
      return false;
    }
    bool done = false;
    for (const auto& c : batch) {
      if (c.wr_id & kTagMask) sends_.Completed(c.wr_id & ~kTagMask);
      if (c.status != IBV_WC_SUCCESS) {
        RecordFailure(c, t0, o, run);
        continue;
      }
      if (c.wr_id == (kReadTag | k)) {
        sample.read_us = double(c.poll_ns - t0) / 1e3;
        done = true;
      } else if (!(c.wr_id & kTagMask)) {
        if (!PostRecv(uint32_t(c.wr_id)).ok()) failed_ = true;  // a stray echo: recycle
      }
    }
    if (failed_) return false;
    if (done) return true;
  }
}

}  // namespace rdmascope::probes
