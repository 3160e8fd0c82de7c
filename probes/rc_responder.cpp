#include "probes/rc_responder.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "probes/probe_clock.h"
#include "probes/probe_timing.h"
#include "probes/probe_wire.h"
#include "probes/qp_setup.h"
#include "probes/send_signal.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

namespace {
constexpr uint32_t kRecvSlots = 32;
constexpr uint32_t kSendSlots = 32;
constexpr size_t kSlotBytes = 64;
constexpr uint64_t kSendTag = 1ull << 63;
constexpr uint32_t kSignalEvery = 8;
}  // namespace

Result<std::unique_ptr<RcResponderSession>> RcResponderSession::Create(
    ibv_context* ctx, ibv_pd* pd, const LocalPort& local, const RcConnectRequest& req,
    bool inject_rnr, const ResponderSpin& spin) {
  Status s = ValidateTuning(req.tuning);
  if (!s.ok()) return s;
  std::unique_ptr<RcResponderSession> r(new RcResponderSession());
  r->local_ = local;
  r->spin_ = spin;
  r->psn_ = std::random_device{}() & 0xffffff;
  auto cq = CompletionQueue::Create(ctx, int(kRecvSlots + kSendSlots + 8));
  if (!cq.ok()) return cq.status();
  r->cq_ = std::move(cq).value();
  r->cq_->set_solicited_only(true);
  auto qp = CreateQp(pd, r->cq_->cq(), r->cq_->cq(), IBV_QPT_RC, kSendSlots, kRecvSlots);
  if (!qp.ok()) return qp.status();
  r->qp_ = std::move(qp).value();
  auto buf = Buffer::Register(pd, kSlotBytes * (kRecvSlots + kSendSlots), IBV_ACCESS_LOCAL_WRITE);
  if (!buf.ok()) return buf.status();
  r->buf_ = std::move(buf).value();
  s = RcToInit(r->qp_.get(), local.port, IBV_ACCESS_REMOTE_READ);
  if (!s.ok()) return s;
  if (!inject_rnr) {
    for (uint32_t i = 0; i < kRecvSlots; ++i) {
      s = r->PostRecv(i);
      if (!s.ok()) return s;
    }
  }
  RemoteEndpoint prober = req.prober;
  prober.mtu_bytes = std::min(prober.mtu_bytes, MtuBytes(local.active_mtu));
  s = RcToRtr(r->qp_.get(), local.port, local.gid_index, prober, req.tuning, req.probe_class);
  if (!s.ok()) return s;
  s = RcToRts(r->qp_.get(), r->psn_, req.tuning);
  if (!s.ok()) return s;
  return r;
}

RcResponderSession::~RcResponderSession() { qp_.reset(); }

RcConnectReply RcResponderSession::Reply() const {
  RcConnectReply rep;
  rep.responder.qpn = qp_->qp_num;
  rep.responder.psn = psn_;
  rep.responder.lid = local_.lid;
  rep.responder.gid = local_.gid;
  rep.responder.global = local_.roce;
  rep.responder.mtu_bytes = MtuBytes(local_.active_mtu);
  return rep;
}

Status RcResponderSession::PostRecv(uint32_t slot) {
  ibv_sge sge{};
  sge.addr = buf_.addr() + uint64_t(slot) * kSlotBytes;
  sge.length = uint32_t(kSlotBytes);
  sge.lkey = buf_.lkey();
  ibv_recv_wr wr{};
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  int rc = ibv_post_recv(qp_.get(), &wr, &bad);
  if (rc != 0) return ErrnoStatus("ibv_post_recv", rc, "RC responder");
  return Status::Ok();
}

void RcResponderSession::Serve(LineConn& conn, const std::atomic<bool>& stop) {
  std::vector<Completion> batch;
  SendSignaler sends(kSignalEvery, kSendSlots);
  AdaptiveSpin hot = spin_.Make();
  uint64_t last_rx_ns = 0;
  bool just_served = false;
  while (!stop.load()) {
    batch.clear();
    bool ctl_ready = false;
    auto n = cq_->Wait(batch, 32, NowNs() + 1000000000ull, just_served ? hot.Budget() : 0, &stop,
                       conn.fd(), &ctl_ready);
    if (!n.ok()) {
      std::fprintf(stderr, "rc responder: %s\n", n.status().message().c_str());
      return;
    }
    if (ctl_ready && conn.DrainAndCheckClosed()) return;
    just_served = !batch.empty();
    if (cq_->ArmAllIfUnsolicitedRecv(batch)) std::fprintf(stderr, "rc responder: a probe came without the solicited bit (an older prober?): waking for every completion from now on\n");
    for (const auto& c : batch) {
      if (c.wr_id & kSendTag) {
        sends.Completed(c.wr_id & ~kSendTag);
        if (c.status != IBV_WC_SUCCESS) return;  // QP in error: the prober reconnects
        continue;
      }
      if (c.status != IBV_WC_SUCCESS) return;
      const uint64_t t3 = c.device_ns ? *c.device_ns : c.poll_ns;
      if (last_rx_ns != 0 && c.poll_ns > last_rx_ns) hot.Observe(c.poll_ns - last_rx_ns);
      last_rx_ns = c.poll_ns;
      const uint32_t slot = uint32_t(c.wr_id);
      const uint8_t* rx = buf_.data() + size_t(slot) * kSlotBytes;
      if (sends.Room() && c.byte_len <= kSlotBytes) {
        bool signal = false;
        const uint64_t k = sends.Post(&signal);
        const uint32_t sslot = kRecvSlots + uint32_t(k % kSendSlots);
        uint8_t* tx = buf_.data() + size_t(sslot) * kSlotBytes;
        auto m = DecodeProbe(rx, c.byte_len);
        std::memcpy(tx, rx, c.byte_len);
        ibv_sge sge{};
        sge.addr = reinterpret_cast<uint64_t>(tx);
        sge.length = c.byte_len;
        sge.lkey = buf_.lkey();
        ibv_send_wr wr{};
        wr.wr_id = kSendTag | k;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_SEND;
        wr.send_flags = IBV_SEND_SOLICITED | (signal ? IBV_SEND_SIGNALED : 0);
        if (m) {
          m->kind = ProbeKind::kEcho;
          m->responder_delay_ns = ResponderDelayNs(t3, NowNs());  // T4 - T3
          EncodeProbe(*m, tx);
        }
        ibv_send_wr* bad = nullptr;
        int rc = ibv_post_send(qp_.get(), &wr, &bad);
        if (rc != 0) {
          std::fprintf(stderr, "rc responder: %s\n", ErrnoMessage("ibv_post_send", rc).c_str());
          return;
        }
      }
      Status s = PostRecv(slot);
      if (!s.ok()) {
        std::fprintf(stderr, "rc responder: %s\n", s.message().c_str());
        return;
      }
    }
  }
}

}  // namespace rdmascope::probes
