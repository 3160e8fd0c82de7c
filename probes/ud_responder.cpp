#include "probes/ud_responder.h"

#include <cstdio>
#include <cstring>
#include <vector>

#include "common/wc_status.h"

#include "probes/probe_clock.h"
#include "probes/probe_timing.h"
#include "probes/prober.h"
#include "probes/probe_wire.h"
#include "probes/qp_setup.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

namespace {
constexpr uint32_t kRecvSlots = 64;
constexpr uint32_t kSendSlots = 64;
constexpr size_t kSlotBytes = kGrhBytes + 64;  // GRH + message, rounded up
constexpr uint64_t kSendTag = 1ull << 63;      // wr_id bit marking send slots
constexpr size_t kMaxAhCache = 256;  // > kSendSlots: an unpinned entry always exists
constexpr uint32_t kSignalEvery = 8;
constexpr size_t kMaxEvents = 64;  // kept between TakeEvents() calls; older ones go first

std::string StatusName(int status) {
  const WcStatusInfo* w = FindWcStatus(status);
  return w ? std::string(w->short_name) : "status " + std::to_string(status);
}

const char* QpStateName(ibv_qp_state s) {
  switch (s) {
    case IBV_QPS_RESET: return "RESET";
    case IBV_QPS_INIT: return "INIT";
    case IBV_QPS_RTR: return "RTR";
    case IBV_QPS_RTS: return "RTS";
    case IBV_QPS_SQD: return "SQD";
    case IBV_QPS_SQE: return "SQE";
    case IBV_QPS_ERR: return "ERR";
    default: return "unknown";
  }
}

// True when the header area carries an IPv4 header at byte 20 (RoCE v2 over
// IPv4), with rdma-core's rule: not IPv6 version 6 and IPv4 version 4, or
// version 6 in front but an IPv4 header of 5 words with a valid checksum.
bool HasIpv4Header(const uint8_t* hdr) {
  const uint8_t* ip = hdr + 20;
  if ((hdr[0] >> 4) != 6) return (ip[0] >> 4) == 4;
  if ((ip[0] & 0x0f) != 5) return false;
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += uint32_t(ip[i]) << 8 | ip[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return sum == 0xffff;
}
}  // namespace

std::string UdReplyAhKey(const uint8_t* hdr, uint16_t slid) {
  const char* h = reinterpret_cast<const char*>(hdr);
  std::string key;
  if (HasIpv4Header(hdr)) {
    key.assign(1, '4');
    key.append(h + 21, 1);   // TOS
    key.append(h + 32, 8);   // source, destination address
  } else {
    key.assign(1, '6');
    key.append(h, 4);        // version, traffic class, flow label
    key.append(h + 8, 32);   // source, destination GID
  }
  key.append(reinterpret_cast<const char*>(&slid), sizeof slid);
  return key;
}

UdResponder::UdResponder() : sends_(kSignalEvery, kSendSlots), ah_cache_(kMaxAhCache) {}

Result<std::unique_ptr<UdResponder>> UdResponder::Create(ibv_context* ctx, ibv_pd* pd,
                                                         const std::string& device, int port,
                                                         const ResponderSpin& spin,
                                                         const UdResponderFaults& faults) {
  std::unique_ptr<UdResponder> r(new UdResponder());
  r->ctx_ = ctx;
  r->pd_ = pd;
  r->device_ = device;
  r->port_ = port;
  r->faults_ = faults;
  r->spin_ = spin;
  const int cqe = faults.stall_burst > 0 ? UdResponderFaults::kStallCqEntries : int(kRecvSlots + kSendSlots + 8);
  auto cq = CompletionQueue::Create(ctx, cqe);
  if (!cq.ok()) return cq.status();
  r->cq_ = std::move(cq).value();
  r->cq_->set_solicited_only(true);
  auto qp = CreateQp(pd, r->cq_->cq(), r->cq_->cq(), IBV_QPT_UD, kSendSlots, kRecvSlots);
  if (!qp.ok()) return qp.status();
  r->qp_ = std::move(qp).value();
  auto buf = Buffer::Register(pd, kSlotBytes * (kRecvSlots + kSendSlots), IBV_ACCESS_LOCAL_WRITE);
  if (!buf.ok()) return buf.status();
  r->buf_ = std::move(buf).value();
  Status s = UdToRts(r->qp_.get(), port, kProbeQkey, 0);
  if (!s.ok()) return s;
  for (uint32_t i = 0; i < kRecvSlots; ++i) {
    s = r->PostRecv(i);
    if (!s.ok()) return s;
  }
  return r;
}

UdResponder::~UdResponder() {
  // QP first (it references the AHs' PD and the CQ), then AHs; the CQ and
  // buffer go with the members.
  qp_.reset();
  ah_cache_.Clear();
}

Status UdResponder::PostRecv(uint32_t slot) {
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
  if (rc != 0) return ErrnoStatus("ibv_post_recv", rc, "UD responder " + device_);
  return Status::Ok();
}

UdResponder::CachedAh* UdResponder::AhFor(const Completion& c, const uint8_t* grh) {
  const std::string key = UdReplyAhKey(grh, c.slid);
  if (CachedAh* hit = ah_cache_.Find(key)) return hit;
  ibv_wc wc{};
  wc.status = IBV_WC_SUCCESS;
  wc.wc_flags = c.wc_flags;
  wc.src_qp = c.src_qp;
  wc.slid = c.slid;
  wc.sl = c.sl;
  wc.qp_num = c.qp_num;
  ibv_ah_attr attr{};
  int rc = ibv_init_ah_from_wc(ctx_, uint8_t(port_), &wc,
                               reinterpret_cast<ibv_grh*>(const_cast<uint8_t*>(grh)), &attr);
  if (rc != 0) {
    std::fprintf(stderr, "ud responder %s/%d: %s\n", device_.c_str(), port_,
                 ErrnoMessage("ibv_init_ah_from_wc", errno ? errno : rc).c_str());
    return nullptr;
  }
  auto ah = CreateAh(pd_, &attr);
  if (!ah.ok()) {
    std::fprintf(stderr, "ud responder %s/%d: %s\n", device_.c_str(), port_, ah.status().message().c_str());
    return nullptr;
  }
  // Least recently used first; never an AH an echo in flight still uses.
  return ah_cache_.Insert(key, CachedAh{std::move(ah).value(), 0}, [this](const CachedAh& e) {
    return !sends_.InFlight(e.last_send);
  });
}

void UdResponder::NoteFailure(const Completion& c, const char* what) {
  // Flushes follow a failure already noted; a flush with none noted means the
  // QP left RTS some other way (an async error, a modify from outside).
  if (failure_ && c.status == IBV_WC_WR_FLUSH_ERR) return;
  if (failure_) return;
  const WcStatusInfo* w = FindWcStatus(c.status);
  char vendor[16];
  std::snprintf(vendor, sizeof vendor, "0x%x", c.vendor_err);
  const std::string status = StatusName(c.status);
  failure_ = NewEvent(status, std::string("a ") + what + " completed with " + status +
                                  (w ? " (" + std::string(w->verbs_text) + ")" : "") + ", vendor_err " + vendor);
}

ResponderEvent UdResponder::NewEvent(std::string status, const std::string& what) const {
  ResponderEvent e;
  e.device = device_;
  e.port = port_;
  e.qpn = qp_->qp_num;
  e.status = std::move(status);
  e.at_ms = int64_t(WallMs());
  e.detail = "UD responder " + device_ + "/" + std::to_string(port_) + " QPN " + std::to_string(e.qpn) + ": " + what;
  return e;
}

void UdResponder::AddEvent(ResponderEvent e) {
  std::fprintf(stderr, "%s\n", e.detail.c_str());
  std::lock_guard<std::mutex> lock(events_mu_);
  if (events_.size() >= kMaxEvents) events_.erase(events_.begin());
  events_.push_back(std::move(e));
}

std::vector<ResponderEvent> UdResponder::TakeEvents() {
  std::lock_guard<std::mutex> lock(events_mu_);
  std::vector<ResponderEvent> out;
  out.swap(events_);
  return out;
}

bool UdResponder::Recover() {
  ResponderEvent e = std::move(*failure_);
  failure_.reset();
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  int rc = ibv_query_qp(qp_.get(), &attr, IBV_QP_STATE, &init);
  if (rc != 0) {
    e.detail += "; " + ErrnoMessage("ibv_query_qp", rc) + ": the responder stops and is built again";
    AddEvent(std::move(e));
    return false;
  }
  const ibv_qp_state was = attr.qp_state;
  if (was == IBV_QPS_SQE) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTS;
    a.cur_qp_state = IBV_QPS_SQE;
    rc = ibv_modify_qp(qp_.get(), &a, IBV_QP_STATE | IBV_QP_CUR_STATE);
    if (rc == 0) {
      sends_.RetireAll();
      e.recovered = true;
      e.detail += "; QP moved SQE -> RTS";
      AddEvent(std::move(e));
      return true;
    }
  }
  // Any other state (ERR, or still RTS after a failed receive whose slot is
  // not posted any more), or SQE that would not move: through RESET.
  Status s = Status::Ok();
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RESET;
  rc = ibv_modify_qp(qp_.get(), &a, IBV_QP_STATE);
  if (rc != 0) s = ErrnoStatus("ibv_modify_qp(UD RESET)", rc);
  if (s.ok()) {
    // RESET took every work request; what the CQ still holds are their flushes.
    std::vector<Completion> stale;
    for (int i = 0; i < 64; ++i) {
      stale.clear();
      auto n = cq_->Poll(stale, 64);
      if (!n.ok() || *n == 0) break;
    }
    sends_.RetireAll();
    s = UdToRts(qp_.get(), port_, kProbeQkey, 0);
  }
  for (uint32_t i = 0; s.ok() && i < kRecvSlots; ++i) s = PostRecv(i);
  if (!s.ok()) {
    e.detail += std::string("; QP was in ") + QpStateName(was) + ", recovery failed: " + s.message() +
                ": the responder stops and is built again";
    AddEvent(std::move(e));
    return false;
  }
  e.recovered = true;
  e.detail += std::string("; QP moved ") + QpStateName(was) + " -> RESET -> RTS, receives posted again";
  AddEvent(std::move(e));
  return true;
}

void UdResponder::HandleRecv(const Completion& c) {
  const uint32_t slot = uint32_t(c.wr_id);
  if (c.status != IBV_WC_SUCCESS) {
    NoteFailure(c, "receive");
    return;  // recovery posts every receive again
  }
  uint8_t* rx = buf_.data() + size_t(slot) * kSlotBytes;
  if (!failure_ && !faults_.drop && c.byte_len >= kGrhBytes + kWireBytes && sends_.Room()) {
    auto m = DecodeProbe(rx + kGrhBytes, c.byte_len - kGrhBytes);
    CachedAh* ah = m && m->kind == ProbeKind::kProbe ? AhFor(c, rx) : nullptr;
    if (ah != nullptr) {
      bool signal = false;
      const uint64_t k = sends_.Post(&signal);
      ah->last_send = k;
      const uint32_t sslot = kRecvSlots + uint32_t(k % kSendSlots);
      uint8_t* tx = buf_.data() + size_t(sslot) * kSlotBytes;
      ProbeMessage echo = *m;
      echo.kind = ProbeKind::kEcho;
      echo.responder_delay_ns = cq_->SinceNs(c);  // T4 - T3, in one clock
      EncodeProbe(echo, tx);
      ibv_sge sge{};
      sge.addr = reinterpret_cast<uint64_t>(tx);
      sge.length = uint32_t(kWireBytes);
      sge.lkey = buf_.lkey();
      if (++echoes_posted_ == faults_.bad_send_at) sge.lkey ^= 0xff;  // fault injection: a key no MR has
      ibv_send_wr wr = UdSendWr(kSendTag | k, &sge, signal, ah->ah.get(), c.src_qp, kProbeQkey);
      ibv_send_wr* bad = nullptr;
      int rc = ibv_post_send(qp_.get(), &wr, &bad);
      if (rc == 0) {
        echoed_.fetch_add(1);
      } else {
        std::fprintf(stderr, "ud responder %s/%d: %s\n", device_.c_str(), port_,
                     ErrnoMessage("ibv_post_send", rc).c_str());
      }
    }
  }
  Status s = PostRecv(slot);
  if (!s.ok()) std::fprintf(stderr, "ud responder: %s\n", s.message().c_str());
}

void UdResponder::Run(const std::atomic<bool>& stop) {
  std::vector<Completion> batch;
  AdaptiveSpin hot = spin_.Make();
  uint64_t last_rx_ns = 0;
  bool just_served = false;
  while (!stop.load()) {
    batch.clear();
    auto n = cq_->Wait(batch, 32, NowNs() + 1000000000ull, just_served ? hot.Budget() : 0, &stop);
    if (!n.ok()) {
      AddEvent(NewEvent("completion wait failed", n.status().message() + ": the responder stops and is built again"));
      StopWith("completion wait failed");
      return;
    }
    just_served = !batch.empty();
    if (cq_->ArmAllIfUnsolicitedRecv(batch)) std::fprintf(stderr, "ud responder %s/%d: a probe came without the solicited bit (an older prober?): waking for every completion from now on\n", device_.c_str(), port_);
    for (const auto& c : batch) {
      if (c.wr_id & kSendTag) {
        sends_.Completed(c.wr_id & ~kSendTag);
        if (c.status != IBV_WC_SUCCESS) NoteFailure(c, "send");
        continue;
      }
      if (last_rx_ns != 0 && c.poll_ns > last_rx_ns) hot.Observe(c.poll_ns - last_rx_ns);
      last_rx_ns = c.poll_ns;
      HandleRecv(c);
      if (faults_.stall_burst > 0) NoteForStall(c.poll_ns);
    }
    if (stall_now_) {  // fault injection: a CQ left unpolled while a burst goes on
      stall_now_ = false;
      faults_.stall_burst = 0;
      std::fprintf(stderr, "ud responder %s/%d: fault injection: the CQ is not polled for %d ms\n", device_.c_str(),
                   port_, UdResponderFaults::kStallMs);
      SleepUntil(NowNs() + uint64_t(UdResponderFaults::kStallMs) * 1000000ull, &stop);
    }
    if (async_pending_.load() && !TakeAsyncEvents()) {
      StopWith(cq_failed_status_);
      return;
    }
    if (failure_) {
      const std::string status = failure_->status;
      if (!Recover()) {
        StopWith(status);
        return;
      }
    }
  }
}

void UdResponder::StopWith(std::string status) {
  stop_status_ = std::move(status);
  stopped_.store(true);
}

void UdResponder::NoteForStall(uint64_t rx_ns) {
  recent_rx_.push_back(rx_ns);
  if (recent_rx_.size() > faults_.stall_burst) recent_rx_.erase(recent_rx_.begin());
  stall_now_ = recent_rx_.size() == faults_.stall_burst &&
               rx_ns - recent_rx_.front() <= uint64_t(UdResponderFaults::kStallWindowMs) * 1000000ull;
}

void UdResponder::QpEvent(const std::string& type) {
  std::lock_guard<std::mutex> lock(async_mu_);
  qp_event_ = type;
  async_pending_.store(true);
}

void UdResponder::CqFailed(const std::string& type) {
  std::lock_guard<std::mutex> lock(async_mu_);
  cq_failed_ = type;
  async_pending_.store(true);
}

bool UdResponder::TakeAsyncEvents() {
  std::string qp_event, cq_failed;
  {
    std::lock_guard<std::mutex> lock(async_mu_);
    qp_event.swap(qp_event_);
    cq_failed.swap(cq_failed_);
    async_pending_.store(false);
  }
  if (!cq_failed.empty()) {
    cq_failed_status_ = cq_failed;
    AddEvent(NewEvent(cq_failed, "async event " + cq_failed + " on its completion queue (a CQ in error cannot be "
                                 "brought back): the responder stops and is built again"));
    return false;
  }
  if (qp_event.empty() || failure_) return true;  // a failure noted already is recovered from below
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  const int rc = ibv_query_qp(qp_.get(), &attr, IBV_QP_STATE, &init);
  if (rc == 0 && attr.qp_state == IBV_QPS_RTS) {
    ResponderEvent e = NewEvent(qp_event, "async event " + qp_event + "; the QP is still in RTS, nothing to do");
    e.recovered = true;
    AddEvent(std::move(e));
    return true;
  }
  failure_ = NewEvent(qp_event, "async event " + qp_event + ", QP in " +
                                    (rc == 0 ? std::string(QpStateName(attr.qp_state)) : ErrnoMessage("ibv_query_qp", rc)));
  return true;
}

}  // namespace rdmascope::probes
