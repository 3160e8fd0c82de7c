#include "probes/responder.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <algorithm>

#include "probes/context_events.h"
#include "probes/control_server.h"
#include "probes/control_session.h"
#include "probes/line_socket.h"
#include "probes/local_port.h"
#include "probes/probe_clock.h"
#include "probes/rc_responder.h"
#include "probes/ud_responder.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

// One served port: its UD QP and the thread echoing on it.
struct Responder::PortState {
  int port = 1;
  std::string rail;
  uint64_t born_seq = 0;  // the device's event number noted before `ud` was made
  std::unique_ptr<UdResponder> ud;
  std::atomic<bool> stop{false};
  std::thread thread;

  void StopThread() {
    stop.store(true);
    if (thread.joinable()) thread.join();
  }
  ~PortState() { StopThread(); }
};

// One open device. Members in dependency order: its QPs (the ports' UD QPs,
// then the RC sessions) are destroyed first, its context last. `ports` is
// changed only by Serve() and Stop() (under serve_mu_); control handlers read
// the immutable fields only.
struct Responder::DeviceState {
  std::string name;
  uint64_t epoch = 0;
  ContextPtr ctx;
  PdPtr pd;
  Buffer read_buf;
  std::unique_ptr<RcResponderPool> rc;
  std::vector<std::unique_ptr<PortState>> ports;
  // The context's failure events (QP, CQ), read on the reader's thread and
  // acted on by the next Heal(); under async_mu, at most kMaxPendingEvents.
  std::mutex async_mu;
  std::vector<ContextEvent> async_events;
  std::unique_ptr<ContextEventReader> reader;  // last: its thread ends before anything above goes

  // Ends every thread on the device (its RC sessions with them).
  void StopThreads() {
    for (auto& p : ports) p->stop.store(true);
    for (auto& p : ports) p->StopThread();
    if (rc) rc->Stop();
  }
  ~DeviceState() { StopThreads(); }
};

// What the control port serves, published whole by each Serve() and never
// changed after: control handlers hold it (shared) while they set up an RC
// session, so its devices stay open.
struct Responder::Served {
  struct Endpoint {
    DeviceState* device;  // held by `devices`
    LocalPort port;
  };
  std::vector<std::shared_ptr<DeviceState>> devices;
  std::vector<Endpoint> endpoints;  // one per (served port, GID)
  // What ud_info lists. Its own allocation: a connection paging through it
  // holds this, never the devices.
  std::shared_ptr<const UdInfoReply> ud_info = std::make_shared<const UdInfoReply>();
};

namespace {
// Where probers address the read buffer (ibv_reg_mr_iova): a fixed small
// number, so the rc_connect reply carries no heap address.
constexpr uint64_t kReadIovaBase = 0x10000;
}  // namespace

std::vector<std::string> DefaultControlAddresses(const std::vector<std::string>& devices) {
  std::vector<std::string> out;
  const std::string prefix = "::ffff:";  // GidToString's form of an IPv4-mapped GID
  for (const auto& name : devices.empty() ? ListDeviceNames() : devices) {
    auto ctx = OpenDevice(name);
    if (!ctx.ok()) continue;
    for (int port : ActivePorts(ctx->get())) {
      for (int gi : RoceV2GidIndexes(ctx->get(), port)) {
        auto lp = DescribePort(ctx->get(), name, port, gi);
        if (!lp.ok()) continue;
        const std::string gid = GidToString(lp->gid);
        if (gid.rfind(prefix, 0) != 0) continue;
        const std::string ip = gid.substr(prefix.size());
        if (std::find(out.begin(), out.end(), ip) == out.end()) out.push_back(ip);
      }
    }
  }
  return out;
}

Result<std::unique_ptr<Responder>> Responder::StartIdle(const ResponderOptions& opts) {
  std::unique_ptr<Responder> r(new Responder());
  r->opts_ = opts;
  r->served_ = std::make_shared<const Served>();
  Responder* self = r.get();
  std::vector<std::string> addrs = opts.control_bind;
  const bool defaults = addrs.empty();
  if (defaults) {
    addrs = DefaultControlAddresses(opts.devices);
    if (addrs.empty()) {
      std::fprintf(stderr, "responder: no RoCE v2 IPv4 address on the served ports: the control port "
                           "listens on every address (set --control-bind to narrow it)\n");
    } else {
      for (const auto& a : opts.extra_bind) {
        // Only addresses of this host (a trial bind to port 0 tells): a node
        // name resolving elsewhere must not stop the responder.
        if (std::find(addrs.begin(), addrs.end(), a) == addrs.end() && TcpListen(0, a).ok()) addrs.push_back(a);
      }
    }
  }
  ControlServices services;
  services.ud_info = [self]() -> std::shared_ptr<const UdInfoReply> {
    auto served = self->Current();
    return served ? served->ud_info : nullptr;
  };
  services.rc_connect = [self](const RcConnectRequest& req) -> Result<std::string> {
    auto served = self->Current();  // held while the session is set up: its devices stay open
    if (!served) return Status::Error("rc_connect: the agent is stopping; retry");
    return self->HandleRcConnect(req, *served);
  };
  const ControlSessionOptions session{opts.control_secret, opts.control_strict};
  auto handler = [services, session](LineConn& c, const std::atomic<bool>& stop) {
    ServeControlConnection(c, stop, session, services);
  };
  std::vector<std::string> unbound;
  auto srv = defaults ? ControlServer::StartOnAny(opts.control_port, handler, addrs, &unbound)
                      : ControlServer::Start(opts.control_port, handler, addrs);
  if (!srv.ok()) return srv.status();
  for (const std::string& u : unbound)
    std::fprintf(stderr, "responder: the control port left out an address (the others serve): %s\n", u.c_str());
  r->server_ = std::move(srv).value();
  return r;
}

Result<std::unique_ptr<Responder>> Responder::Start(const ResponderOptions& opts) {
  std::vector<std::string> names = opts.devices.empty() ? ListDeviceNames() : opts.devices;
  if (names.empty()) return Status::Error("no RDMA devices (ibv_devices lists none)");
  std::vector<ServedPort> ports;
  for (const auto& name : names) {
    auto ctx = OpenDevice(name);
    if (!ctx.ok()) return ctx.status();
    for (int port : ActivePorts(ctx->get())) ports.push_back({name, port, ""});
  }
  auto r = StartIdle(opts);
  if (!r.ok()) return r.status();
  std::vector<std::string> problems = (*r)->Serve(ports);
  if ((*r)->UdInfo().endpoints.empty()) {
    std::string why = problems.empty() ? "" : " (" + problems.front() + ")";
    std::string on = "any device";
    if (!opts.devices.empty()) {
      on.clear();
      for (const std::string& d : opts.devices) on += (on.empty() ? "" : ", ") + d;
    }
    return Status::Error("no ACTIVE port on " + on + why);
  }
  return r;
}

namespace {
// The endpoints and ud_info of `from` whose device is not in `gone`.
template <typename Served, typename Device>
std::shared_ptr<const Served> Leaving(const Served& from, const std::vector<std::shared_ptr<Device>>& gone) {
  auto is_gone = [&gone](const Device* d) {
    for (const auto& g : gone)
      if (g.get() == d) return true;
    return false;
  };
  auto out = std::make_shared<Served>();
  for (const auto& d : from.devices)
    if (!is_gone(d.get())) out->devices.push_back(d);
  UdInfoReply info = *from.ud_info;
  info.endpoints.clear();
  for (const auto& e : from.ud_info->endpoints) {
    bool kept = false;
    for (const auto& d : out->devices) kept = kept || d->name == e.device;
    if (kept) info.endpoints.push_back(e);
  }
  out->ud_info = std::make_shared<const UdInfoReply>(std::move(info));
  for (const auto& e : from.endpoints)
    if (!is_gone(e.device)) out->endpoints.push_back(e);
  return out;
}
}  // namespace

std::vector<std::string> Responder::Serve(const std::vector<ServedPort>& ports) {
  std::lock_guard<std::mutex> serving(serve_mu_);
  std::vector<std::string> problems;
  struct Wanted {
    uint64_t epoch = 0;
    std::map<int, std::string> rails;  // port -> rail
  };
  std::map<std::string, Wanted> wanted;
  for (const ServedPort& sp : ports) {
    wanted[sp.device].epoch = sp.epoch;
    wanted[sp.device].rails[sp.port] = sp.rail;
  }
  // A device no longer served, or served under a new epoch (it went away and
  // came back), is unpublished and released before anything is opened.
  std::vector<std::shared_ptr<DeviceState>> released;
  for (auto it = devices_.begin(); it != devices_.end();) {
    auto w = wanted.find(it->first);
    if (w == wanted.end() || w->second.epoch != it->second->epoch) {
      released.push_back(std::move(it->second));
      it = devices_.erase(it);
    } else {
      ++it;
    }
  }
  if (!released.empty()) {
    auto now = Current();
    if (now) Publish(Leaving(*now, released));
    for (auto& d : released) {
      d->StopThreads();
      for (auto& p : d->ports) KeepEvents(*p);
    }
    released.clear();
  }
  // On a kept device, a port no longer served or no longer ACTIVE stops; the
  // others keep their QP and thread, whatever changed on other ports.
  for (auto& [name, d] : devices_) {
    const Wanted& w = wanted[name];
    std::vector<int> active = ActivePorts(d->ctx.get());
    for (auto it = d->ports.begin(); it != d->ports.end();) {
      PortState& p = **it;
      auto rail = w.rails.find(p.port);
      if (rail != w.rails.end() && std::find(active.begin(), active.end(), p.port) != active.end()) {
        p.rail = rail->second;
        ++it;
      } else {
        p.StopThread();
        KeepEvents(p);
        it = d->ports.erase(it);
      }
    }
  }
  // What is wanted and not served yet is opened.
  std::vector<PortState*> started;
  for (const auto& [name, w] : wanted) {
    auto& d = devices_[name];
    if (!d) {
      auto nd = OpenServedDevice(name, w.epoch, &problems);
      if (!nd) {
        devices_.erase(name);
        continue;
      }
      d = std::move(nd);
    }
    std::vector<int> active = ActivePorts(d->ctx.get());
    for (const auto& [port, rail] : w.rails) {
      bool served = false;
      for (const auto& p : d->ports) served = served || p->port == port;
      if (served) continue;
      if (std::find(active.begin(), active.end(), port) == active.end()) {
        problems.push_back(name + "/" + std::to_string(port) + ": port not ACTIVE");
        continue;
      }
      const uint64_t born = d->reader ? d->reader->NextSeq() : 0;
      auto ud = CreateUd(*d, port);
      if (!ud.ok()) {
        problems.push_back(ud.status().message());
        continue;
      }
      auto p = std::make_unique<PortState>();
      p->port = port;
      p->rail = rail;
      p->born_seq = born;
      p->ud = std::move(ud).value();
      started.push_back(p.get());
      d->ports.push_back(std::move(p));
    }
  }
  for (PortState* p : started) {
    UdResponder* u = p->ud.get();
    p->thread = std::thread([u, stop = &p->stop] { u->Run(*stop); });
  }
  Publish(Listing(&problems));
  return problems;
}

Result<std::unique_ptr<UdResponder>> Responder::CreateUd(const DeviceState& d, int port) const {
  UdResponderFaults faults;
  faults.drop = opts_.inject == Injection::kDrop;
  faults.bad_send_at = opts_.inject == Injection::kUdSendError ? 10 : 0;
  // The overrun once per port (the rebuilt responder is healthy).
  const std::string key = d.name + "/" + std::to_string(port);
  if (opts_.inject == Injection::kUdCqOverrun && overrun_injected_.insert(key).second) faults.stall_burst = 10;
  return UdResponder::Create(d.ctx.get(), d.pd.get(), d.name, port, opts_.spin, faults);
}

void Responder::KeepEvents(PortState& p) {
  if (!p.ud) return;
  for (auto& e : p.ud->TakeEvents()) events_.push_back(std::move(e));
  if (events_.size() > kMaxPendingEvents)
    events_.erase(events_.begin(), events_.begin() + std::ptrdiff_t(events_.size() - kMaxPendingEvents));
}

std::vector<ResponderEvent> Responder::TakeEvents() {
  std::lock_guard<std::mutex> serving(serve_mu_);
  for (auto& [name, d] : devices_)
    for (auto& p : d->ports) KeepEvents(*p);
  std::vector<ResponderEvent> out;
  out.swap(events_);
  return out;
}

void Responder::ActOnAsyncEvents(DeviceState& d) {
  std::vector<ContextEvent> events;
  {
    std::lock_guard<std::mutex> lock(d.async_mu);
    events.swap(d.async_events);
  }
  for (const ContextEvent& e : events) {
    bool ud = false;
    for (auto& p : d.ports) {
      if (!p->ud || e.seq < p->born_seq) continue;  // of an earlier QP or CQ with the same number or address
      if (e.on == ContextEvent::On::kQp && p->ud->qpn() == e.qpn) p->ud->QpEvent(e.type), ud = true;
      if (e.on == ContextEvent::On::kCq && p->ud->cq() == e.cq) p->ud->CqFailed(e.type), ud = true;
    }
    if (ud || !d.rc) continue;  // the UD responder reports what it did
    // An RC session's QP ends with its failed completions (its prober
    // connects again); an RC shard's failed CQ ends the shard's sessions.
    if (e.on == ContextEvent::On::kQp && d.rc->HasQp(e.qpn))
      std::fprintf(stderr, "rc responder %s: async event %s on session QPN %u: the session ends, its prober connects "
                           "again\n", d.name.c_str(), e.type.c_str(), e.qpn);
    if (e.on == ContextEvent::On::kCq) d.rc->FailCq(e.cq, e.seq);
  }
}

std::vector<std::string> Responder::Heal() {
  std::lock_guard<std::mutex> serving(serve_mu_);
  std::vector<std::string> problems;
  bool changed = false;
  for (auto& [name, d] : devices_) ActOnAsyncEvents(*d);
  for (auto& [name, d] : devices_) {
    for (auto& p : d->ports) {
      if (!p->ud || !p->ud->stopped()) continue;
      p->StopThread();
      KeepEvents(*p);
      const std::string why = " (" + p->ud->stop_status() + ")";
      const uint32_t old_qpn = p->ud->qpn();
      const uint64_t born = d->reader ? d->reader->NextSeq() : 0;
      auto ud = CreateUd(*d, p->port);
      if (!ud.ok()) {
        problems.push_back("UD responder " + name + "/" + std::to_string(p->port) + " stopped and cannot be built "
                           "again (retried every second): " + ud.status().message());
        continue;
      }
      ResponderEvent e;
      e.device = name;
      e.port = p->port;
      e.qpn = (*ud)->qpn();
      e.status = "rebuilt";
      e.recovered = true;
      e.at_ms = int64_t(WallMs());
      e.detail = "UD responder " + name + "/" + std::to_string(p->port) + " QPN " + std::to_string(old_qpn) +
                 " stopped" + why + "; built again with QPN " + std::to_string(e.qpn);
      std::fprintf(stderr, "%s\n", e.detail.c_str());
      events_.push_back(std::move(e));
      p->ud = std::move(ud).value();
      p->born_seq = born;
      p->stop.store(false);
      UdResponder* u = p->ud.get();
      p->thread = std::thread([u, stop = &p->stop] { u->Run(*stop); });
      changed = true;
    }
  }
  if (changed) Publish(Listing(&problems));
  return problems;
}

std::shared_ptr<Responder::DeviceState> Responder::OpenServedDevice(const std::string& name, uint64_t epoch,
                                                                    std::vector<std::string>* problems) const {
  auto d = std::make_shared<DeviceState>();
  d->name = name;
  d->epoch = epoch;
  auto ctx = OpenDevice(name);
  if (!ctx.ok()) {
    problems->push_back(ctx.status().message());
    return nullptr;
  }
  d->ctx = std::move(ctx).value();
  auto pd = AllocPd(d->ctx.get());
  if (!pd.ok()) {
    problems->push_back(pd.status().message());
    return nullptr;
  }
  d->pd = std::move(pd).value();
  auto rb = Buffer::RegisterAtIova(d->pd.get(), kReadBufferBytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
                                   kReadIovaBase);
  if (!rb.ok()) {
    problems->push_back(rb.status().message());
    return nullptr;
  }
  d->read_buf = std::move(rb).value();
  std::snprintf(reinterpret_cast<char*>(d->read_buf.data()), kReadBufferBytes, "rdmascope read probe %s",
                name.c_str());
  DeviceState* raw = d.get();
  auto reader = ContextEventReader::Start(d->ctx.get(), name, [raw](const ContextEvent& e) {
    if (!e.failure || (e.on != ContextEvent::On::kQp && e.on != ContextEvent::On::kCq)) return;
    std::lock_guard<std::mutex> lock(raw->async_mu);
    auto& q = raw->async_events;
    if (q.size() >= kMaxPendingEvents) {  // full: a QP event gives way first (a CQ's failure is rarer and worse)
      auto qp = std::find_if(q.begin(), q.end(), [](const ContextEvent& x) { return x.on == ContextEvent::On::kQp; });
      if (qp == q.end()) return;
      q.erase(qp);
    }
    q.push_back(e);
  });
  if (reader.ok())
    d->reader = std::move(reader).value();
  else  // served all the same: failed QPs still show in their completions
    problems->push_back(reader.status().message() + " (its QP and CQ async events are not read)");
  RcResponderPool::Options rc;
  rc.limits = opts_.rc_limits;
  rc.inject_rnr = opts_.inject == Injection::kRnr;
  rc.spin = opts_.spin;
  rc.event_seq = [raw] { return raw->reader ? raw->reader->NextSeq() : 0; };
  d->rc = std::make_unique<RcResponderPool>(std::move(rc));
  return d;
}

std::shared_ptr<const Responder::Served> Responder::Listing(std::vector<std::string>* problems) const {
  auto served = std::make_shared<Served>();
  UdInfoReply ud_info;
  for (const auto& [name, d] : devices_) {
    served->devices.push_back(d);
    for (const auto& p : d->ports) {
      std::vector<int> gids = RoceV2GidIndexes(d->ctx.get(), p->port);
      if (gids.empty()) gids.push_back(0);
      for (int gi : gids) {
        auto lp = DescribePort(d->ctx.get(), name, p->port, gi);
        if (!lp.ok()) continue;
        served->endpoints.push_back({d.get(), *lp});
        UdEndpointInfo e;
        e.device = name;
        e.port = p->port;
        e.gid_index = gi;
        e.gid = GidToString(lp->gid);
        e.lid = lp->lid;
        e.qpn = p->ud->qpn();
        e.roce = lp->roce;
        e.rail = p->rail;
        ud_info.endpoints.push_back(e);
      }
    }
  }
  // Ordered before the cut, so the GIDs probers choose are the last left out.
  OrderUdEndpoints(ud_info.endpoints);  // what an older prober's one page should hold
  if (ud_info.endpoints.size() > size_t(kMaxUdEndpoints)) {
    problems->push_back("ud_info lists at most " + std::to_string(kMaxUdEndpoints) + " endpoints: " +
                        std::to_string(ud_info.endpoints.size() - size_t(kMaxUdEndpoints)) +
                        " GIDs of the served ports are left out");
    ud_info.endpoints.resize(size_t(kMaxUdEndpoints));
  }
  served->ud_info = std::make_shared<const UdInfoReply>(std::move(ud_info));
  return served;
}

void Responder::Publish(std::shared_ptr<const Served> served) {
  std::lock_guard<std::mutex> lock(mu_);
  if (served_) served_ = std::move(served);  // never after Stop()
}

std::shared_ptr<const Responder::Served> Responder::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return served_;
}

UdInfoReply Responder::UdInfo() const {
  auto s = Current();
  return s ? *s->ud_info : UdInfoReply{};
}

size_t Responder::rc_sessions() const {
  auto s = Current();
  size_t n = 0;
  if (s)
    for (const auto& d : s->devices) n += d->rc ? d->rc->sessions() : 0;
  return n;
}

int Responder::control_port() const { return server_ ? server_->port() : 0; }

Responder::~Responder() { Stop(); }

void Responder::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    served_.reset();  // nothing is handed out from here on
  }
  std::lock_guard<std::mutex> serving(serve_mu_);
  for (auto& [name, d] : devices_)
    for (auto& p : d->ports) p->stop.store(true);
  if (server_) server_->Stop();  // joins the control handlers
  for (auto& [name, d] : devices_) d->StopThreads();
  devices_.clear();
}

Result<std::string> Responder::HandleRcConnect(const RcConnectRequest& req, const Served& served) {
  const Served::Endpoint* at = nullptr;
  for (const auto& e : served.endpoints) {
    if (req.target_gid.empty() || GidToString(e.port.gid) == req.target_gid) {
      at = &e;
      break;
    }
  }
  if (at == nullptr) return Status::Error("no served port has GID " + req.target_gid);
  DeviceState* dev = at->device;
  auto rep = dev->rc->Connect(dev->ctx.get(), dev->pd.get(), at->port, req);
  if (!rep.ok()) return rep.status();
  RcConnectReply r = *rep;
  r.read_addr = dev->read_buf.remote_addr();  // an I/O address of ours, not a pointer
  r.read_rkey = dev->read_buf.rkey();
  r.read_len = kReadBufferBytes;
  return EncodeRcConnectReply(r);
}

}  // namespace rdmascope::probes
