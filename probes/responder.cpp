#include "probes/responder.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <algorithm>

#include "probes/control_server.h"
#include "probes/control_session.h"
#include "probes/line_socket.h"
#include "probes/local_port.h"
#include "probes/rc_responder.h"
#include "probes/ud_responder.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

// Members in dependency order: destroyed QPs first, context last.
struct Responder::DeviceState {
  std::string name;
  ContextPtr ctx;
  PdPtr pd;
  Buffer read_buf;
  std::vector<LocalPort> ports;  // one per (active port, GID) served
  std::vector<std::string> rails;  // rail of each entry of `ports`
  std::vector<std::unique_ptr<UdResponder>> uds;
};

// One served set. Control handlers hold it (shared) while they set up an RC
// session, so its devices stay open; `stop` ends the UD threads, and
// StopThreads() the RC sessions too.
struct Responder::Generation {
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<DeviceState>> devices;
  std::unique_ptr<RcResponderPool> rc;  // declared after devices: destroyed before their PDs
  // What ud_info lists. Its own allocation: a connection paging through it
  // holds this, never the generation and its devices.
  std::shared_ptr<const UdInfoReply> ud_info = std::make_shared<const UdInfoReply>();
  std::vector<std::thread> ud_threads;  // joined before the generation is released

  void StopThreads() {
    stop.store(true);
    for (auto& t : ud_threads)
      if (t.joinable()) t.join();
    ud_threads.clear();
    if (rc) rc->Stop();
  }
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
  r->gen_ = std::make_shared<Generation>();
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
    auto gen = self->Current();
    return gen ? gen->ud_info : nullptr;
  };
  services.rc_connect = [self](const RcConnectRequest& req) -> Result<std::string> {
    auto gen = self->Current();  // held while the session is set up: its devices stay open
    if (!gen) return Status::Error("rc_connect: the agent is stopping; retry");
    return self->HandleRcConnect(req, gen);
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

std::vector<std::string> Responder::Serve(const std::vector<ServedPort>& ports) {
  std::shared_ptr<Generation> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::move(gen_);
    gen_ = std::make_shared<Generation>();
  }
  // The old set first: a vanished device is released before anything is opened.
  if (old) old->StopThreads();
  old.reset();
  auto gen = std::make_shared<Generation>();
  gen->rc = std::make_unique<RcResponderPool>(
      RcResponderPool::Options{opts_.rc_limits, opts_.inject == Injection::kRnr, opts_.spin});
  std::vector<std::string> problems;
  UdInfoReply ud_info;
  std::map<std::string, DeviceState*> by_name;
  for (const ServedPort& sp : ports) {
    DeviceState* d = by_name.count(sp.device) ? by_name[sp.device] : nullptr;
    if (d == nullptr) {
      auto nd = std::make_unique<DeviceState>();
      nd->name = sp.device;
      auto ctx = OpenDevice(sp.device);
      if (!ctx.ok()) { problems.push_back(ctx.status().message()); continue; }
      nd->ctx = std::move(ctx).value();
      auto pd = AllocPd(nd->ctx.get());
      if (!pd.ok()) { problems.push_back(pd.status().message()); continue; }
      nd->pd = std::move(pd).value();
      auto rb = Buffer::RegisterAtIova(nd->pd.get(), kReadBufferBytes,
                                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, kReadIovaBase);
      if (!rb.ok()) { problems.push_back(rb.status().message()); continue; }
      nd->read_buf = std::move(rb).value();
      std::snprintf(reinterpret_cast<char*>(nd->read_buf.data()), kReadBufferBytes, "rdmascope read probe %s",
                    sp.device.c_str());
      d = nd.get();
      by_name[sp.device] = d;
      gen->devices.push_back(std::move(nd));
    }
    std::vector<int> active = ActivePorts(d->ctx.get());
    if (std::find(active.begin(), active.end(), sp.port) == active.end()) {
      problems.push_back(sp.device + "/" + std::to_string(sp.port) + ": port not ACTIVE");
      continue;
    }
    auto ud = UdResponder::Create(d->ctx.get(), d->pd.get(), sp.device, sp.port, opts_.inject == Injection::kDrop,
                                 opts_.spin);
    if (!ud.ok()) { problems.push_back(ud.status().message()); continue; }
    std::vector<int> gids = RoceV2GidIndexes(d->ctx.get(), sp.port);
    if (gids.empty()) gids.push_back(0);
    for (int gi : gids) {
      auto lp = DescribePort(d->ctx.get(), sp.device, sp.port, gi);
      if (!lp.ok()) continue;
      d->ports.push_back(*lp);
      d->rails.push_back(sp.rail);
      UdEndpointInfo e;
      e.device = sp.device;
      e.port = sp.port;
      e.gid_index = gi;
      e.gid = GidToString(lp->gid);
      e.lid = lp->lid;
      e.qpn = (*ud)->qpn();
      e.roce = lp->roce;
      e.rail = sp.rail;
      ud_info.endpoints.push_back(e);
    }
    d->uds.push_back(std::move(ud).value());
  }
  // Ordered before the cut, so the GIDs probers choose are the last left out.
  OrderUdEndpoints(ud_info.endpoints);  // what an older prober's one page should hold
  if (ud_info.endpoints.size() > size_t(kMaxUdEndpoints)) {
    problems.push_back("ud_info lists at most " + std::to_string(kMaxUdEndpoints) + " endpoints: " +
                       std::to_string(ud_info.endpoints.size() - size_t(kMaxUdEndpoints)) +
                       " GIDs of the served ports are left out");
    ud_info.endpoints.resize(size_t(kMaxUdEndpoints));
  }
  gen->ud_info = std::make_shared<const UdInfoReply>(std::move(ud_info));
  for (auto& d : gen->devices) {
    for (auto& ud : d->uds) {
      UdResponder* u = ud.get();
      gen->ud_threads.emplace_back([u, stop = &gen->stop] { u->Run(*stop); });
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  gen_ = std::move(gen);
  return problems;
}

std::shared_ptr<Responder::Generation> Responder::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return gen_;
}

UdInfoReply Responder::UdInfo() const {
  auto g = Current();
  return g ? *g->ud_info : UdInfoReply{};
}

size_t Responder::rc_sessions() const {
  auto g = Current();
  return g && g->rc ? g->rc->sessions() : 0;
}

int Responder::control_port() const { return server_ ? server_->port() : 0; }

Responder::~Responder() { Stop(); }

void Responder::Stop() {
  std::shared_ptr<Generation> g;
  {
    std::lock_guard<std::mutex> lock(mu_);
    g = std::move(gen_);
  }
  if (g) g->stop.store(true);  // RC sessions end before the server joins their threads
  if (server_) server_->Stop();
  if (g) g->StopThreads();
}

Result<std::string> Responder::HandleRcConnect(const RcConnectRequest& req,
                                               const std::shared_ptr<Generation>& gen) {
  DeviceState* dev = nullptr;
  const LocalPort* port = nullptr;
  for (auto& d : gen->devices) {
    for (auto& p : d->ports) {
      if (req.target_gid.empty() || GidToString(p.gid) == req.target_gid) {
        dev = d.get();
        port = &p;
        break;
      }
    }
    if (port) break;
  }
  if (port == nullptr) return Status::Error("no served port has GID " + req.target_gid);
  if (!gen->rc) return Status::Error("RC responder not running (the served ports are changing): retry");
  auto rep = gen->rc->Connect(dev->ctx.get(), dev->pd.get(), *port, req);
  if (!rep.ok()) return rep.status();
  RcConnectReply r = *rep;
  r.read_addr = dev->read_buf.remote_addr();  // an I/O address of ours, not a pointer
  r.read_rkey = dev->read_buf.rkey();
  r.read_len = kReadBufferBytes;
  return EncodeRcConnectReply(r);
}

}  // namespace rdmascope::probes
