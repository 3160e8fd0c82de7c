#include "probes/rc_responder.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

#include "probes/probe_clock.h"
#include "probes/probe_timing.h"
#include "probes/probe_wire.h"
#include "probes/qp_setup.h"
#include "probes/send_signal.h"
#include "probes/verbs_error.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

namespace {
constexpr uint32_t kSignalEvery = 8;
constexpr int kIdShift = 24;                  // wr_id: session id << 24 | send bit | slot or post number
constexpr uint64_t kSendBit = 1ull << 23;
constexpr uint64_t kLowMask = kSendBit - 1;
constexpr uint64_t kExpireEveryNs = 1000000000ull;
constexpr uint64_t kWaitSliceNs = 1000000000ull;

uint64_t RecvWrId(uint64_t id, uint32_t slot) { return (id << kIdShift) | slot; }
uint64_t SendWrId(uint64_t id, uint64_t k) { return (id << kIdShift) | kSendBit | (k & kLowMask); }
}  // namespace

struct RcResponderPool::Shard {
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  uint32_t capacity = 0;
  std::unique_ptr<CompletionQueue> cq;
  Buffer slab;                   // capacity x kSlotsPerSession slots of kSlotBytes
  std::vector<uint32_t> free;    // session slots not in use; under mu_
  bool broken = false;           // its CQ failed: no new sessions; under mu_
  std::atomic<bool> cq_failed{false};  // an async CQ_ERR named its CQ (FailCq): its thread ends it
  uint64_t born_seq = 0;         // the device's event number noted before its CQ was made
  bool retired = false;          // emptied and freed its CQ and slab: no new sessions; under mu_
  std::atomic<bool> done{false};  // its thread has returned
  std::thread thread;
};

struct RcResponderPool::Session {
  uint64_t id = 0;
  Shard* shard = nullptr;
  uint32_t slot = 0;             // which kSlotsPerSession-slot part of the shard's slab
  QpPtr qp;
  SendSignaler sends{kSignalEvery, kSendSlots};
  uint64_t posted = 0;           // sends posted (unwraps the post number in a wr_id)

  uint8_t* SlotData(uint32_t i) {
    return shard->slab.data() + (size_t(slot) * kSlotsPerSession + i) * kSlotBytes;
  }
  Status PostRecv(uint32_t i) {
    ibv_sge sge{reinterpret_cast<uint64_t>(SlotData(i)), uint32_t(kSlotBytes), shard->slab.lkey()};
    ibv_recv_wr wr{};
    wr.wr_id = RecvWrId(id, i);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    int rc = ibv_post_recv(qp.get(), &wr, &bad);
    return rc ? ErrnoStatus("ibv_post_recv", rc, "RC responder") : Status::Ok();
  }
};

RcResponderPool::RcResponderPool(Options o) : opts_(o), table_(o.limits) {}

RcResponderPool::~RcResponderPool() {
  Stop();
  shards_.clear();  // CQs and slabs, after every QP on them is gone
}

void RcResponderPool::Stop() {
  stop_.store(true);
  std::vector<Shard*> shards;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : shards_) shards.push_back(s.get());
  }
  for (Shard* s : shards)
    if (s->thread.joinable()) s->thread.join();
  Retired dead;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<uint64_t> ids;
    for (auto& [id, s] : live_) ids.push_back(id);
    for (uint64_t id : ids) DetachLocked(id, dead);
  }
  Retire(dead);
}

size_t RcResponderPool::sessions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

size_t RcResponderPool::shards() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shards_.size();
}

Result<std::pair<RcResponderPool::Shard*, uint32_t>> RcResponderPool::ReserveLocked(ibv_context* ctx,
                                                                                    ibv_pd* pd) {
  // Shards that emptied and freed their verbs objects: their threads have
  // ended (or are ending), so joining them here is short.
  for (auto it = shards_.begin(); it != shards_.end();) {
    if ((*it)->retired && (*it)->done.load()) {
      if ((*it)->thread.joinable()) (*it)->thread.join();
      it = shards_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& s : shards_) {
    if (s->ctx == ctx && s->pd == pd && !s->broken && !s->retired && !s->free.empty()) {
      uint32_t slot = s->free.back();
      s->free.pop_back();
      return std::make_pair(s.get(), slot);
    }
  }
  ibv_device_attr attr{};
  int rc = ibv_query_device(ctx, &attr);
  if (rc != 0) return ErrnoStatus("ibv_query_device", rc, "RC responder shard");
  auto sh = std::make_unique<Shard>();
  sh->ctx = ctx;
  sh->pd = pd;
  const uint32_t by_cqe = attr.max_cqe > 16 ? uint32_t(attr.max_cqe - 16) / kSlotsPerSession : 0;
  sh->capacity = std::min(kSessionsPerShard, by_cqe);
  if (sh->capacity == 0) return Status::Error("RC responder: the device's max_cqe (" + std::to_string(attr.max_cqe) +
                                              ") is too small for one session");
  sh->born_seq = opts_.event_seq ? opts_.event_seq() : 0;
  auto cq = CompletionQueue::Create(ctx, int(sh->capacity * kSlotsPerSession + 16));
  if (!cq.ok()) return cq.status();
  sh->cq = std::move(cq).value();
  sh->cq->set_solicited_only(true);
  auto slab = Buffer::Register(pd, size_t(sh->capacity) * kSlotsPerSession * kSlotBytes, IBV_ACCESS_LOCAL_WRITE);
  if (!slab.ok()) return slab.status();
  sh->slab = std::move(slab).value();
  for (uint32_t i = sh->capacity; i > 1; --i) sh->free.push_back(i - 1);  // slot 0 is taken now
  Shard* p = sh.get();
  p->thread = std::thread([this, p] { ServeShard(p); });
  shards_.push_back(std::move(sh));
  return std::make_pair(p, 0u);
}

void RcResponderPool::DetachLocked(uint64_t id, Retired& out) {
  table_.Remove(id);
  auto it = live_.find(id);
  if (it == live_.end()) return;
  out.push_back(std::move(it->second));
  live_.erase(it);
}

void RcResponderPool::Retire(Retired& r) {
  if (r.empty()) return;
  for (auto& s : r) s->qp.reset();  // no more DMA into its slots after this
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& s : r) s->shard->free.push_back(s->slot);
  r.clear();
}

Result<RcConnectReply> RcResponderPool::Connect(ibv_context* ctx, ibv_pd* pd, const LocalPort& local,
                                                const RcConnectRequest& req) {
  Status st = ValidateTuning(req.tuning);
  if (!st.ok()) return st;
  auto s = std::make_unique<Session>();
  Retired dead;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_.load()) return Status::Error("RC responder is stopping (the served ports changed): retry");
    auto adm = table_.Admit(req.session, NowNs());
    if (!adm.ok()) return adm.status();
    for (uint64_t id : adm->replaced) DetachLocked(id, dead);
    for (uint64_t id : adm->evicted) DetachLocked(id, dead);
    auto r = ReserveLocked(ctx, pd);
    if (!r.ok()) {
      table_.Remove(adm->id);
      return r.status();
    }
    s->id = adm->id;
    s->shard = r->first;
    s->slot = r->second;
  }
  Retire(dead);
  // The QP is built outside the lock: echoes of other sessions go on meanwhile.
  const uint32_t psn = std::random_device{}() & 0xffffff;
  Status b = [&]() -> Status {
    auto qp = CreateQp(pd, s->shard->cq->cq(), s->shard->cq->cq(), IBV_QPT_RC, kSendSlots, kRecvSlots);
    if (!qp.ok()) return qp.status();
    s->qp = std::move(qp).value();
    Status t = RcToInit(s->qp.get(), local.port, IBV_ACCESS_REMOTE_READ);
    for (uint32_t i = 0; t.ok() && !opts_.inject_rnr && i < kRecvSlots; ++i) t = s->PostRecv(i);
    if (!t.ok()) return t;
    RemoteEndpoint prober = req.prober;
    prober.mtu_bytes = std::min(prober.mtu_bytes, MtuBytes(local.active_mtu));
    t = RcToRtr(s->qp.get(), local.port, local.gid_index, prober, req.tuning, req.probe_class);
    if (!t.ok()) return t;
    return RcToRts(s->qp.get(), psn, req.tuning);
  }();
  RcConnectReply rep;
  if (b.ok()) {
    rep.responder.qpn = s->qp->qp_num;
    rep.responder.psn = psn;
    rep.responder.lid = local.lid;
    rep.responder.gid = local.gid;
    rep.responder.global = local.roce;
    rep.responder.mtu_bytes = MtuBytes(local.active_mtu);
    rep.idle_timeout_ms = opts_.limits.idle_ns / 1000000;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (b.ok() && !stop_.load() && table_.Contains(s->id)) {
      live_[s->id] = std::move(s);
      return rep;
    }
    table_.Remove(s->id);
  }
  if (b.ok()) b = Status::Error("RC session replaced or stopped while it was being set up: retry");
  dead.push_back(std::move(s));
  Retire(dead);
  return b;
}

bool RcResponderPool::FailCq(const ibv_cq* cq, uint64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& s : shards_)
    if (!s->retired && !s->broken && s->cq && s->cq->cq() == cq && seq >= s->born_seq) {
      s->cq_failed.store(true);
      return true;
    }
  return false;
}

bool RcResponderPool::HasQp(uint32_t qpn) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, s] : live_)
    if (s->qp && s->qp->qp_num == qpn) return true;
  return false;
}

void RcResponderPool::ServeShard(Shard* shard) {
  std::vector<Completion> batch;
  AdaptiveSpin hot = opts_.spin.Make();
  uint64_t last_rx_ns = 0;
  uint64_t last_expire_ns = NowNs();
  bool just_served = false;
  while (!stop_.load()) {
    batch.clear();
    auto n = shard->cq->Wait(batch, 64, NowNs() + kWaitSliceNs, just_served ? hot.Budget() : 0, &stop_);
    if (!n.ok() || shard->cq_failed.load()) {
      // A failed CQ (device removed or reset, or an async CQ_ERR): its
      // sessions end now (their probers reconnect), and new sessions go to a
      // new shard.
      std::fprintf(stderr, "rc responder: %s: this shard's sessions end\n",
                   n.ok() ? "async event CQ_ERR on the shard's completion queue" : n.status().message().c_str());
      Retired dead;
      {
        std::lock_guard<std::mutex> lock(mu_);
        shard->broken = true;
        std::vector<uint64_t> ids;
        for (auto& [id, sess] : live_)
          if (sess->shard == shard) ids.push_back(id);
        for (uint64_t id : ids) DetachLocked(id, dead);
      }
      Retire(dead);
      shard->done.store(true);
      return;
    }
    just_served = !batch.empty();
    if (shard->cq->ArmAllIfUnsolicitedRecv(batch))
      std::fprintf(stderr, "rc responder: a probe came without the solicited bit (an older prober?): "
                           "waking for every completion from now on\n");
    Retired dead;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& c : batch) {
        if (!(c.wr_id & kSendBit) && c.status == IBV_WC_SUCCESS) {
          if (last_rx_ns != 0 && c.poll_ns > last_rx_ns) hot.Observe(c.poll_ns - last_rx_ns);
          last_rx_ns = c.poll_ns;
        }
        HandleLocked(shard, c, dead);
      }
      const uint64_t now = NowNs();
      if (now - last_expire_ns >= kExpireEveryNs) {
        last_expire_ns = now;
        for (uint64_t id : table_.Expire(now)) DetachLocked(id, dead);
        // Empty at a tick (no session, none being set up): give the CQ, slab
        // and thread back; the next session makes a new shard.
        if (dead.empty() && shard->free.size() == shard->capacity) shard->retired = true;
      }
    }
    Retire(dead);
    if (shard->retired) break;
  }
  if (shard->retired) {
    shard->slab = Buffer();  // no QP uses them any more, and none can be added
    shard->cq.reset();
  }
  shard->done.store(true);
}

void RcResponderPool::HandleLocked(Shard* shard, const Completion& c, Retired& dead) {
  const uint64_t id = c.wr_id >> kIdShift;
  auto it = live_.find(id);
  if (it == live_.end() || it->second->shard != shard) return;  // a completion of a session already gone
  Session& s = *it->second;
  if (c.wr_id & kSendBit) {
    const uint64_t low = c.wr_id & kLowMask;
    if (s.posted > 0) s.sends.Completed(s.posted - 1 - ((s.posted - 1 - low) & kLowMask));
    if (c.status != IBV_WC_SUCCESS) DetachLocked(id, dead);  // QP in error: the prober reconnects
    return;
  }
  const uint32_t slot = uint32_t(c.wr_id & kLowMask);
  if (c.status != IBV_WC_SUCCESS || slot >= kRecvSlots) {
    DetachLocked(id, dead);
    return;
  }
  table_.Touch(id, c.poll_ns);
  const uint8_t* rx = s.SlotData(slot);
  if (s.sends.Room() && c.byte_len <= kSlotBytes) {
    bool signal = false;
    const uint64_t k = s.sends.Post(&signal);
    s.posted = k + 1;
    uint8_t* tx = s.SlotData(kRecvSlots + uint32_t(k % kSendSlots));
    auto m = DecodeProbe(rx, c.byte_len);
    std::memcpy(tx, rx, c.byte_len);
    if (m) {
      m->kind = ProbeKind::kEcho;
      m->responder_delay_ns = shard->cq->SinceNs(c);  // T4 - T3, in one clock
      EncodeProbe(*m, tx);
    }
    ibv_sge sge{reinterpret_cast<uint64_t>(tx), c.byte_len, s.shard->slab.lkey()};
    ibv_send_wr wr{};
    wr.wr_id = SendWrId(id, k);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SOLICITED | (signal ? IBV_SEND_SIGNALED : 0);
    ibv_send_wr* bad = nullptr;
    int rc = ibv_post_send(s.qp.get(), &wr, &bad);
    if (rc != 0) {
      std::fprintf(stderr, "rc responder: %s\n", ErrnoMessage("ibv_post_send", rc).c_str());
      DetachLocked(id, dead);
      return;
    }
  }
  Status p = s.PostRecv(slot);
  if (!p.ok()) {
    std::fprintf(stderr, "rc responder: %s\n", p.message().c_str());
    DetachLocked(id, dead);
  }
}

}  // namespace rdmascope::probes
