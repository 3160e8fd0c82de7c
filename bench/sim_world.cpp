#include "bench/sim_world.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace rdmascope::bench {

namespace {

// A small seeded generator (splitmix64): one per path and interval.
struct Rng {
  uint64_t s;
  uint64_t Next() { return s = Mix(s); }
  double Uniform() { return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0); }
  double Normal() {
    const double u1 = std::max(Uniform(), 1e-12), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

uint64_t PathSeed(uint64_t seed, size_t src, size_t dst, int nic, const char* transport) {
  return Mix(seed ^ Mix((static_cast<uint64_t>(src) << 32) ^ (static_cast<uint64_t>(dst) << 8) ^
                        static_cast<uint64_t>(nic) ^ (transport[0] == 'r' ? 0x5a5a000000000000ull : 0)));
}

struct Stats {
  size_t count = 0;
  double min = 0, p50 = 0, avg = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};

double Rank(const std::vector<double>& sorted, double q) {
  size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  k = std::clamp<size_t>(k, 1, sorted.size());
  return sorted[k - 1];
}

Stats StatsOf(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.count = v.size();
  s.min = v.front();
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.avg = sum / static_cast<double>(v.size());
  s.p50 = Rank(v, 0.5);
  s.p90 = Rank(v, 0.9);
  s.p99 = Rank(v, 0.99);
  s.p999 = Rank(v, 0.999);
  return s;
}

void AppendStats(std::string& out, const Stats& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"count\":%zu,\"min\":%.3f,\"p50\":%.3f,\"avg\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}",
                s.count, s.min, s.p50, s.avg, s.p90, s.p99, s.p999, s.max);
  out += buf;
}

struct ErrorRecord {
  int status;
  const char* name;
  double wall_ms, after_ms;
};

std::string Head(const SimTopology& topo, size_t src, int nic, size_t dst, int dst_nic, const char* transport,
                 int64_t t0, int64_t t1) {
  const SimNic& s = topo.hosts[src].nics[nic];
  const SimNic& d = topo.hosts[dst].nics[dst_nic];
  const std::string& dname = topo.hosts[dst].name;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"target\":\"%s\",\"transport\":\"%s\",\"rail\":\"%s\",\"local\":{\"device\":\"%s\",\"port\":%d,"
                "\"gid_index\":0,\"lid\":%u},\"remote\":{\"host\":\"%s\",\"control_port\":18610,\"device\":\"%s\","
                "\"port\":%d,\"lid\":%u},\"interval_start_ms\":%" PRId64 ",\"interval_end_ms\":%" PRId64 ",",
                dname.c_str(), transport, s.rail.c_str(), s.device.c_str(), s.port, s.lid, dname.c_str(),
                d.device.c_str(), d.port, d.lid, t0, t1);
  return buf;
}

bool SameEnd(const fabric::PortRef& a, const fabric::PortRef& b) { return a.guid == b.guid && a.port == b.port; }

}  // namespace

SimWorld::SimWorld(const SimTopology& topo, WorldOptions options) : topo_(topo), o_(options), roce_(topo) {
  nic_counters_.resize(topo.hosts.size());
  for (size_t h = 0; h < topo.hosts.size(); ++h) {
    nic_counters_[h].resize(topo.hosts[h].nics.size());
    for (size_t n = 0; n < topo.hosts[h].nics.size(); ++n)
      nic_by_guid_[topo.hosts[h].nics[n].guid] = {h, static_cast<int>(n)};
  }
  for (const SimPlane& p : topo.planes) {
    counted_.push_back(*p.fabric);
    std::unordered_map<uint64_t, size_t> idx;
    for (size_t i = 0; i < counted_.back().nodes.size(); ++i) idx[counted_.back().nodes[i].guid] = i;
    index_.push_back(std::move(idx));
  }
}

const fabric::FabricNode* SimWorld::Node(int plane, uint64_t guid) const {
  auto it = index_[plane].find(guid);
  return it == index_[plane].end() ? nullptr : &counted_[plane].nodes[it->second];
}

bool SimWorld::HostDead(size_t host, int64_t t) const {
  for (const ActiveFault& a : faults_)
    if (Active(a, t) && a.fault.kind == FaultKind::kHost && a.fault.host == host && a.fault.DownAt(t, a.start_ms))
      return true;
  return false;
}

bool SimWorld::HostRnr(size_t host, int64_t t) const {
  for (const ActiveFault& a : faults_)
    if (Active(a, t) && a.fault.kind == FaultKind::kHost && a.fault.host == host && a.fault.rnr) return true;
  return false;
}

bool SimWorld::LinkDownAt(const fabric::PortRef& end, int64_t t) const {
  for (const ActiveFault& a : faults_) {
    if (!Active(a, t) || !a.fault.DownAt(t, a.start_ms)) continue;
    const Fault& f = a.fault;
    if (f.kind == FaultKind::kLink && (SameEnd(f.end_a, end) || SameEnd(f.end_b, end))) return true;
    if (f.kind == FaultKind::kPort) {
      const SimNic& n = topo_.hosts[f.host].nics[f.nic];
      if ((n.guid == end.guid && n.port == end.port) || (n.leaf_guid == end.guid && n.leaf_port == end.port))
        return true;
    }
  }
  return false;
}

bool SimWorld::SwitchDownAt(uint64_t guid, int64_t t) const {
  for (const ActiveFault& a : faults_)
    if (Active(a, t) && a.fault.kind == FaultKind::kSwitch && a.fault.switch_guid == guid &&
        a.fault.DownAt(t, a.start_ms))
      return true;
  return false;
}

bool SimWorld::NicDown(size_t host, int nic, int64_t t) const {
  const SimNic& n = topo_.hosts[host].nics[nic];
  for (const ActiveFault& a : faults_)
    if (Active(a, t) && a.fault.kind == FaultKind::kNic && a.fault.host == host && a.fault.nic == nic &&
        a.fault.DownAt(t, a.start_ms))
      return true;
  return LinkDownAt(fabric::PortRef{n.guid, n.port}, t) || SwitchDownAt(n.leaf_guid, t);
}

// What the active faults do to one path in one interval.
struct SimWorld::PathEffect {
  double success = 1;            // one probe's round trip, loss only
  double delay_us = 0, delay_pct = 0;
  std::vector<const ActiveFault*> may_be_down;  // faults on the path that are down some of the time
  bool rnr = false;
};

std::string SimWorld::ProbeEntry(size_t src, int nic, size_t dst, int dst_nic, const char* transport, int64_t t0,
                                 int64_t t1, uint64_t interval_index) {
  const SimNic& s = topo_.hosts[src].nics[nic];
  const SimNic& d = topo_.hosts[dst].nics[dst_nic];
  const bool rc = transport[0] == 'r';
  const int64_t mid = (t0 + t1) / 2;
  PathEffect e;
  e.success = (1 - o_.background_loss) * (1 - o_.background_loss);
  // Routes, traced only when a cable or switch of this plane is at fault.
  bool need_routes = false;
  for (const ActiveFault& a : faults_)
    if (a.start_ms < t1 && a.end_ms > t0 && a.fault.plane == s.plane &&
        (a.fault.kind == FaultKind::kLink || a.fault.kind == FaultKind::kSwitch))
      need_routes = true;
  std::vector<fabric::Route> routes;
  std::vector<RoceFabric::Crossing> ecmp;  // RoCE: there and back
  if (need_routes && o_.roce) {
    ecmp.push_back(roce_.Direction(s.plane, src, s, dst, d));
    ecmp.push_back(roce_.Direction(s.plane, dst, d, src, s));
  } else if (need_routes) {
    const fabric::RouteTable& rt = *topo_.planes[s.plane].routes;
    auto fwd = rt.Trace(fabric::PortRef{s.guid, s.port}, d.lid);
    auto back = rt.Trace(fabric::PortRef{d.guid, d.port}, s.lid);
    if (fwd.ok()) routes.push_back(std::move(fwd.value()));
    if (back.ok()) routes.push_back(std::move(back.value()));
  }
  for (const ActiveFault& a : faults_) {
    if (a.start_ms >= t1 || a.end_ms <= t0) continue;
    const Fault& f = a.fault;
    int crossings = 0;
    switch (f.kind) {
      case FaultKind::kHost:
        crossings = 2 * ((src == f.host) + (dst == f.host));
        if (f.rnr && dst == f.host && rc) e.rnr = true;
        break;
      case FaultKind::kNic:
      case FaultKind::kPort:
        crossings = 2 * ((src == f.host && nic == f.nic) + (dst == f.host && dst_nic == f.nic));
        break;
      case FaultKind::kGroup:
        crossings = f.members[src] != f.members[dst] ? 2 : 0;
        break;
      case FaultKind::kFleet:
        crossings = 2;
        break;
      case FaultKind::kLink:
        if (f.plane != s.plane) break;
        for (const fabric::Route& r : routes)
          for (const fabric::Cable& c : r.cables)
            if ((SameEnd(c.from, f.end_a) && SameEnd(c.to, f.end_b)) || (SameEnd(c.from, f.end_b) && SameEnd(c.to, f.end_a)))
              ++crossings;
        for (const RoceFabric::Crossing& x : ecmp)
          for (const auto& [a, b] : x.cables)
            if ((SameEnd(a, f.end_a) && SameEnd(b, f.end_b)) || (SameEnd(a, f.end_b) && SameEnd(b, f.end_a))) ++crossings;
        break;
      case FaultKind::kSwitch:
        if (f.plane != s.plane) break;
        for (const fabric::Route& r : routes)
          for (const fabric::Hop& h : r.hops)
            if (h.node->guid == f.switch_guid) ++crossings;
        for (const RoceFabric::Crossing& x : ecmp)
          for (uint64_t g : x.switches) crossings += g == f.switch_guid;
        break;
    }
    if (crossings == 0) continue;
    // A fault that starts or ends inside the interval acts on the probes after / before.
    if (f.loss > 0 && a.start_ms <= mid && a.end_ms > mid) e.success *= std::pow(1 - f.loss, crossings);
    if (a.start_ms <= mid && a.end_ms > mid) {
      e.delay_us += f.delay_us;
      e.delay_pct += f.delay_pct;
    }
    if (f.down || f.flap_s > 0) e.may_be_down.push_back(&a);
  }
  Rng path{PathSeed(o_.seed, src, dst, nic, transport)};
  const double path_factor = std::exp(0.10 * path.Normal());
  Rng rng{Mix(path.s ^ Mix(interval_index + 1))};
  const int hops = s.leaf_guid == d.leaf_guid ? 1 : 3;
  const double base_network = (rc ? 3.0 : 4.0) + 0.7 * hops;
  const int n = o_.probe_count;
  std::vector<double> rtt, network, responder;
  std::vector<ErrorRecord> errors;
  uint64_t retry_timeouts = 0, rnr_naks = 0;
  int received = 0;
  int retry_exc = 0, rnr_exc = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t t = t0 + static_cast<int64_t>((i + 0.5) * static_cast<double>(t1 - t0) / n);
    bool down = HostDead(dst, t) || NicDown(dst, dst_nic, t) || NicDown(src, nic, t);
    for (const ActiveFault* a : e.may_be_down)
      if (t >= a->start_ms && t < a->end_ms && a->fault.DownAt(t, a->start_ms)) down = true;
    const double noise = std::exp(0.05 * rng.Normal()) * (rng.Uniform() < 0.01 ? 2 + 3 * rng.Uniform() : 1.0);
    const double net = base_network * path_factor * noise * (1 + e.delay_pct / 100) + e.delay_us;
    const double resp = (rc ? 0.8 : 1.5) * std::exp(0.3 * rng.Normal());
    const double wall = static_cast<double>(t);
    if (down) {
      if (rc) {
        ++retry_exc;
        retry_timeouts += 7;
        errors.push_back({12, "RETRY_EXC_ERR", wall + 8 * kRcAckTimeoutUs / 1000, 8 * kRcAckTimeoutUs / 1000});
      }
      continue;
    }
    if (e.rnr) {
      ++rnr_exc;
      rnr_naks += 7;
      errors.push_back({13, "RNR_RETRY_EXC_ERR", wall + 5, 5.0});
      continue;
    }
    if (!rc) {
      if (rng.Uniform() >= e.success) continue;
      ++received;
      rtt.push_back(net + resp);
      network.push_back(net);
      responder.push_back(resp);
      continue;
    }
    int tries = 1;
    while (tries <= 8 && rng.Uniform() >= e.success) ++tries;
    retry_timeouts += static_cast<uint64_t>(tries - 1);
    if (tries > 8) {
      ++retry_exc;
      errors.push_back({12, "RETRY_EXC_ERR", wall + 8 * kRcAckTimeoutUs / 1000, 8 * kRcAckTimeoutUs / 1000});
      continue;
    }
    ++received;
    const double r = net + resp + (tries - 1) * kRcAckTimeoutUs;
    rtt.push_back(r);
    network.push_back(r - resp);
    responder.push_back(resp);
  }
  NicCounters& c = nic_counters_[src][nic];
  c.local_ack_timeout_err += retry_timeouts;
  c.rnr_nak_retry_err += rnr_naks;
  std::string out = Head(topo_, src, nic, dst, dst_nic, transport, t0, t1);
  char buf[160];
  const int lost = n - received;
  std::snprintf(buf, sizeof buf, "\"summary\":{\"sent\":%d,\"received\":%d,\"lost\":%d,\"loss_ratio\":%.4f,\"rtt_us\":", n,
                received, lost, static_cast<double>(lost) / n);
  out += buf;
  AppendStats(out, StatsOf(rtt));
  out += ",\"network_us\":";
  AppendStats(out, StatsOf(network));
  out += ",\"responder_us\":";
  AppendStats(out, StatsOf(responder));
  out += ",\"read_us\":null,\"errors_by_status\":{";
  bool first = true;
  if (retry_exc) {
    std::snprintf(buf, sizeof buf, "\"RETRY_EXC_ERR (12)\":%d", retry_exc);
    out += buf;
    first = false;
  }
  if (rnr_exc) {
    std::snprintf(buf, sizeof buf, "%s\"RNR_RETRY_EXC_ERR (13)\":%d", first ? "" : ",", rnr_exc);
    out += buf;
  }
  out += "}},\"errors\":[";
  const size_t kMaxRecords = 3;  // the summary counts them all; a few records say how
  for (size_t i = 0; i < errors.size() && i < kMaxRecords; ++i) {
    const ErrorRecord& r = errors[i];
    char rec[512];
    std::snprintf(rec, sizeof rec,
                  "%s{\"status\":%d,\"status_name\":\"%s\",\"vendor_err\":%d,\"opcode\":\"SEND\",\"wall_ms\":%.1f,"
                  "\"after_ms\":%.3f,\"since_post_us\":%.1f,\"local_qpn\":%u,\"remote_qpn\":%u,\"explanation\":\"%s\"}",
                  i ? "," : "", r.status, r.name, r.status == 12 ? 129 : 136, r.wall_ms, r.after_ms, r.after_ms * 1000,
                  static_cast<unsigned>(0x100 + nic), static_cast<unsigned>(0x200 + dst_nic),
                  r.status == 12 ? "transport retry counter exceeded: no ACK from the responder"
                                 : "receiver not ready: the responder posted no receive");
    out += rec;
  }
  out += "]}";
  return out;
}

std::string SimWorld::NotRunEntry(size_t src, int nic, size_t dst, int dst_nic, const char* transport, int64_t t0,
                                  int64_t t1) const {
  std::string out = Head(topo_, src, nic, dst, dst_nic, transport, t0, t1);
  out += "\"not_run\":\"local port DOWN\",\"summary\":{\"sent\":0,\"received\":0,\"lost\":0,\"loss_ratio\":0,\"rtt_us\":";
  AppendStats(out, Stats{});
  out += ",\"network_us\":null,\"responder_us\":null,\"read_us\":null,\"errors_by_status\":{}},\"errors\":[]}";
  return out;
}

void SimWorld::NoteLinkErrors(const fabric::PortRef& end, uint64_t symbol, uint64_t rcv, uint64_t downed) {
  auto ca = nic_by_guid_.find(end.guid);
  if (ca != nic_by_guid_.end()) {
    NicCounters& c = nic_counters_[ca->second.first][ca->second.second];
    c.symbol_error += symbol;
    c.port_rcv_errors += rcv;
    c.link_downed += downed;
  }
  for (size_t p = 0; p < counted_.size(); ++p) {
    auto it = index_[p].find(end.guid);
    if (it == index_[p].end()) continue;
    for (fabric::FabricPort& port : counted_[p].nodes[it->second].ports)
      if (port.number == end.port) {
        port.counters["symbol_error"].value += symbol;
        port.counters["port_rcv_errors"].value += rcv;
        port.counters["link_downed"].value += downed;
      }
  }
}

void SimWorld::AdvanceCounters(int64_t t0, int64_t t1, uint64_t interval_index) {
  Rng rng{Mix(o_.seed ^ 0xc0ffee ^ Mix(interval_index))};
  const double seconds = static_cast<double>(t1 - t0) / 1000.0;
  for (size_t h = 0; h < topo_.hosts.size(); ++h)
    for (NicCounters& c : nic_counters_[h]) {
      const uint64_t packets = static_cast<uint64_t>(400 * seconds);
      c.xmit_packets += packets;
      c.rcv_packets += packets;
      c.xmit_bytes += packets * 64;
      c.rcv_bytes += packets * 64;
    }
  for (const ActiveFault& a : faults_) {
    if (a.start_ms >= t1 || a.end_ms <= t0) continue;
    const Fault& f = a.fault;
    const uint64_t errs = f.loss > 0 ? static_cast<uint64_t>(std::ceil(f.loss * 200 * seconds * (0.5 + rng.Uniform()))) : 0;
    const uint64_t downs = static_cast<uint64_t>(f.DownTransitions(t0, t1, a.start_ms));
    switch (f.kind) {
      case FaultKind::kLink:
        NoteLinkErrors(f.end_a, errs, errs / 4 + (errs > 0), downs);
        NoteLinkErrors(f.end_b, errs, errs / 4 + (errs > 0), downs);
        break;
      case FaultKind::kPort: {
        const SimNic& n = topo_.hosts[f.host].nics[f.nic];
        NoteLinkErrors(fabric::PortRef{n.guid, n.port}, errs, errs / 4, downs);
        NoteLinkErrors(fabric::PortRef{n.leaf_guid, n.leaf_port}, errs, errs / 4, downs);
        break;
      }
      case FaultKind::kNic:
      case FaultKind::kHost:
        for (size_t k = 0; k < topo_.hosts[f.host].nics.size(); ++k)
          if (f.nic < 0 || f.nic == static_cast<int>(k)) nic_counters_[f.host][k].port_rcv_errors += errs;
        break;
      case FaultKind::kSwitch: {
        const fabric::FabricNode* sw = topo_.planes[f.plane].routes->Node(f.switch_guid);
        if (sw)
          for (const fabric::FabricPort& p : sw->ports)
            if (p.remote) NoteLinkErrors(fabric::PortRef{p.remote->guid, p.remote->port}, 0, 0, downs);
        break;
      }
      case FaultKind::kGroup:
      case FaultKind::kFleet:
        break;
    }
  }
}

fabric::FabricPort SimWorld::LeafPort(size_t host, int nic, int64_t t) const {
  const SimNic& n = topo_.hosts[host].nics[nic];
  const fabric::FabricNode* sw = Node(n.plane, n.leaf_guid);
  fabric::FabricPort p;
  if (sw)
    for (const fabric::FabricPort& q : sw->ports)
      if (q.number == n.leaf_port) p = q;
  if (LinkDownAt(fabric::PortRef{n.guid, n.port}, t)) {
    p.state = 1;
    p.phys_state = 2;
  }
  return p;
}

fabric::Fabric SimWorld::Sweep(int plane, int64_t t) const {
  fabric::Fabric f = counted_[plane];
  std::vector<fabric::FabricNode> kept;
  kept.reserve(f.nodes.size());
  for (fabric::FabricNode& n : f.nodes) {
    if (n.type == fabric::NodeType::kSwitch && SwitchDownAt(n.guid, t)) {
      fabric::Unreachable u;
      u.guid = n.guid;
      u.path = "lid " + std::to_string(n.lid);
      for (const fabric::FabricPort& p : n.ports)
        if (p.remote && !SwitchDownAt(p.remote->guid, t)) {
          u.via = fabric::RemoteEnd{p.remote->guid, p.remote->port};
          break;
        }
      u.what = "NodeInfo via DR to " + fabric::GuidText(n.guid) + ": no answer after 3 tries of 100 ms";
      f.unreachable.push_back(std::move(u));
      continue;
    }
    bool any_up = false;
    for (fabric::FabricPort& p : n.ports) {
      if (!p.remote) continue;
      if (SwitchDownAt(p.remote->guid, t) || LinkDownAt(fabric::PortRef{n.guid, p.number}, t)) {
        p.state = 1;
        p.phys_state = 2;
        p.remote.reset();
      } else {
        any_up = true;
      }
    }
    if (n.type == fabric::NodeType::kCa && !any_up) continue;  // a CA whose only cable is down is not reached
    kept.push_back(std::move(n));
  }
  f.nodes = std::move(kept);
  f.sweep_ms = 180 + static_cast<int64_t>(f.nodes.size() / 20);
  return f;
}

}  // namespace rdmascope::bench
