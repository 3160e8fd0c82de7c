// RC prober: one RC connection to the target; each probe is a SEND/RECV
// ping-pong and (optionally) an RDMA READ of the target's read-only buffer.
// After a failure or a missed deadline the connection is torn down and
// rebuilt with jittered exponential back-off. `reconnects` counts rebuilds after
// failures only.
#include "probes/rc_prober.h"

#include <cstdio>
#include <random>

#include "probes/probe_clock.h"
#include "probes/rc_peer.h"

namespace rdmascope::probes {

Result<std::unique_ptr<RcProber>> RcProber::Open(const ProberOptions& o) {
  Status s = ValidateTuning(o.tuning);
  if (!s.ok()) return s;
  s = ValidateProbeClass(o.probe_class);
  if (!s.ok()) return s;
  auto dev = OpenRailDevice(o.device, o.port, o.gid_index, o.gid_subnet);
  if (!dev.ok()) return dev.status();
  return Open(std::move(dev).value());
}

std::unique_ptr<RcProber> RcProber::Open(std::shared_ptr<RailDevice> dev) {
  std::unique_ptr<RcProber> p(new RcProber());
  p->dev_ = std::move(dev);
  std::random_device rd;
  char id[17];
  std::snprintf(id, sizeof id, "%08x%08x", unsigned(rd()), unsigned(rd()));
  p->session_ = id;
  return p;
}

RcProber::~RcProber() { peer_.reset(); }

Result<ProbeRun> RcProber::Run(const ProberOptions& o, bool fail_if_unreachable) {
  ProbeRun run;
  run.start_wall_ms = WallMs();
  run.transport = "rc";
  run.local = dev_->local;
  run.target = target_;
  const uint64_t run_end = NowNs() + o.max_duration_ms * 1000000ull;
  const uint64_t timeout_ns = o.timeout_ms * 1000000ull;
  if (o.reconnect_each_probe) {
    peer_.reset();
    run.open_fds_before = CountOpenFds();
  }
  uint64_t sent = 0;
  uint64_t burst_t0 = 0;  // when the current burst's primer left
  while (sent < o.count) {
    if ((o.stop && o.stop->load()) || NowNs() >= run_end) break;
    // The agent forgets a session after its idle timeout: rebuild ahead of it.
    if (peer_ && peer_->idle_timeout_ms() != 0 &&
        NowNs() - last_used_ns_ >= peer_->idle_timeout_ms() * 1000000ull / 2) {
      peer_.reset();
      next_connect_ns_ = 0;
    }
    // An async failure of its QP or CQ: the connection is built again now.
    if (peer_) {
      if (auto f = dev_->TakeFailure(peer_->local_qpn(), peer_->cq(), peer_seq_)) {
        std::fprintf(stderr, "rc prober %s/%d QPN %u: async event %s: connecting again\n", dev_->local.device.c_str(),
                     dev_->local.port, peer_->local_qpn(), f->type.c_str());
        peer_.reset();
      }
    }
    if (!peer_) {
      if (NowNs() < next_connect_ns_) {
        SleepUntil(std::min(next_connect_ns_, run_end), o.stop);
        continue;
      }
      peer_seq_ = dev_->EventSeq();  // events numbered lower are of earlier objects
      auto p = RcPeer::Connect(dev_->ctx.get(), dev_->pd.get(), dev_->local, o, &target_, session_);
      if (!p.ok()) {
        if (!ever_connected_ && fail_if_unreachable) return p.status();
        RecordError(run, o, ConnectFailure(p.status().message()));
        next_connect_ns_ = NowNs() + backoff_.NextDelayMs() * 1000000ull;
        continue;
      }
      peer_ = std::move(p).value();
      run.target = target_;
      run.local_qpn = peer_->local_qpn();
      run.remote_qpn = peer_->remote_qpn();
      if (ever_connected_ && !run.errors.empty()) ++run.reconnects;
      ever_connected_ = true;
    }
    const uint64_t t0 = NowNs();
    const uint64_t burst = std::max<uint64_t>(1, o.burst);
    const bool primer = sent % burst == 0;
    if (primer) burst_t0 = t0;
    ProbeSample sample;
    sample.primer = burst > 1 && primer;
    bool healthy = peer_->PingPong(seq_++, timeout_ns, o, run, sample);
    if (healthy && o.rc_read) healthy = peer_->Read(timeout_ns, o, run, sample);
    if (!sample.received && Stopping(o)) break;  // cut short by the stop: not a lost probe
    last_used_ns_ = NowNs();
    run.samples.push_back(sample);
    ++sent;
    if (!healthy) {
      peer_.reset();
      next_connect_ns_ = NowNs() + backoff_.NextDelayMs() * 1000000ull;
    } else {
      backoff_.Reset();
      if (o.reconnect_each_probe) peer_.reset();  // self-test: a full teardown per probe
    }
    // The next burst leaves burst x interval after this one started; inside a
    // burst the next probe leaves at once.
    if (o.interval_ms > 0 && sent % burst == 0 && sent < o.count)
      SleepUntil(burst_t0 + burst * o.interval_ms * 1000000ull, o.stop);
  }
  if (o.reconnect_each_probe) {
    peer_.reset();
    run.open_fds_after = CountOpenFds();
  }
  run.end_wall_ms = WallMs();
  return run;
}

Result<ProbeRun> RunRcProbe(const ProberOptions& o) {
  auto prober = RcProber::Open(o);
  if (!prober.ok()) return prober.status();
  return (*prober)->Run(o, /*fail_if_unreachable=*/true);
}

}  // namespace rdmascope::probes
