#include "probes/responder.h"

#include <cstdio>
#include <cstring>

#include "probes/control_server.h"
#include "probes/line_socket.h"
#include "probes/local_port.h"
#include "probes/probe_clock.h"
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
  std::vector<std::unique_ptr<UdResponder>> uds;
};

namespace {
constexpr uint64_t kFirstRequestNs = 5000000000ull;
constexpr uint64_t kIdleNs = 30000000000ull;
constexpr uint64_t kWriteNs = 2000000000ull;
}  // namespace

Result<std::unique_ptr<Responder>> Responder::Start(const ResponderOptions& opts) {
  std::unique_ptr<Responder> r(new Responder());
  r->opts_ = opts;
  std::vector<std::string> names = opts.device.empty() ? ListDeviceNames()
                                                        : std::vector<std::string>{opts.device};
  if (names.empty()) return Status::Error("no RDMA devices (ibv_devices lists none)");
  for (const auto& name : names) {
    auto d = std::make_unique<DeviceState>();
    d->name = name;
    auto ctx = OpenDevice(name);
    if (!ctx.ok()) return ctx.status();
    d->ctx = std::move(ctx).value();
    auto pd = AllocPd(d->ctx.get());
    if (!pd.ok()) return pd.status();
    d->pd = std::move(pd).value();
    auto rb = Buffer::Register(d->pd.get(), kReadBufferBytes,
                               IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    if (!rb.ok()) return rb.status();
    d->read_buf = std::move(rb).value();
    std::snprintf(reinterpret_cast<char*>(d->read_buf.data()), kReadBufferBytes,
                  "rdmascope read probe %s", name.c_str());
    for (int port : ActivePorts(d->ctx.get())) {
      auto ud = UdResponder::Create(d->ctx.get(), d->pd.get(), name, port,
                                    opts.inject == Injection::kDrop);
      if (!ud.ok()) return ud.status();
      std::vector<int> gids = RoceV2GidIndexes(d->ctx.get(), port);
      if (gids.empty()) gids.push_back(0);
      for (int gi : gids) {
        auto lp = DescribePort(d->ctx.get(), name, port, gi);
        if (!lp.ok()) continue;
        d->ports.push_back(*lp);
        UdEndpointInfo e;
        e.device = name;
        e.port = port;
        e.gid_index = gi;
        e.gid = GidToString(lp->gid);
        e.lid = lp->lid;
        e.qpn = (*ud)->qpn();
        e.roce = lp->roce;
        if (r->ud_info_.endpoints.size() < size_t(kMaxUdEndpoints)) r->ud_info_.endpoints.push_back(e);
      }
      d->uds.push_back(std::move(ud).value());
    }
    r->devices_.push_back(std::move(d));
  }
  if (r->ud_info_.endpoints.empty()) return Status::Error("no ACTIVE port on " + (opts.device.empty() ? std::string("any device") : opts.device));
  for (auto& d : r->devices_) {
    for (auto& ud : d->uds) {
      UdResponder* u = ud.get();
      r->ud_threads_.emplace_back([u, stop = &r->stop_] { u->Run(*stop); });
    }
  }
  Responder* self = r.get();
  auto srv = ControlServer::Start(opts.control_port, [self](LineConn& c, const std::atomic<bool>& stop) {
    self->HandleConnection(c, stop);
  });
  if (!srv.ok()) {
    r->Stop();
    return srv.status();
  }
  r->server_ = std::move(srv).value();
  return r;
}

Responder::~Responder() { Stop(); }

void Responder::Stop() {
  stop_.store(true);
  if (server_) server_->Stop();
  for (auto& t : ud_threads_) {
    if (t.joinable()) t.join();
  }
  ud_threads_.clear();
}

void Responder::HandleConnection(LineConn& conn, const std::atomic<bool>& stop) {
  uint64_t deadline = NowNs() + kFirstRequestNs;
  for (int requests = 0; requests < 100 && !stop.load(); ++requests) {
    auto line = conn.ReadLine(deadline, &stop);
    if (!line.ok()) return;  // closed, timed out, too long or stopping
    deadline = NowNs() + kIdleNs;
    auto req = ParseControlRequest(*line);
    if (!req.ok()) {
      conn.WriteLine(EncodeErrorReply(req.status().message()), NowNs() + kWriteNs);
      continue;
    }
    if (req->op == ControlOp::kUdInfo) {
      if (!conn.WriteLine(EncodeUdInfoReply(ud_info_), NowNs() + kWriteNs).ok()) return;
      continue;
    }
    bool served = false;
    std::string err = HandleRcConnect(conn, req->rc, stop, &served);
    if (served) return;
    conn.WriteLine(EncodeErrorReply(err), NowNs() + kWriteNs);
  }
}

std::string Responder::HandleRcConnect(LineConn& conn, const RcConnectRequest& req,
                                       const std::atomic<bool>& stop, bool* served) {
  *served = false;
  DeviceState* dev = nullptr;
  const LocalPort* port = nullptr;
  for (auto& d : devices_) {
    for (auto& p : d->ports) {
      if (req.target_gid.empty() || GidToString(p.gid) == req.target_gid) {
        dev = d.get();
        port = &p;
        break;
      }
    }
    if (port) break;
  }
  if (port == nullptr) return "no served port has GID " + req.target_gid;
  auto session = RcResponderSession::Create(dev->ctx.get(), dev->pd.get(), *port, req,
                                            opts_.inject == Injection::kRnr);
  if (!session.ok()) return session.status().message();
  RcConnectReply rep = (*session)->Reply();
  rep.read_addr = dev->read_buf.addr();
  rep.read_rkey = dev->read_buf.rkey();
  rep.read_len = kReadBufferBytes;
  *served = true;
  if (!conn.WriteLine(EncodeRcConnectReply(rep), NowNs() + kWriteNs).ok()) return "";
  (*session)->Serve(conn, stop);
  return "";
}

}  // namespace rdmascope::probes
