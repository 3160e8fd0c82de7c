// RC prober with a connection that outlives one run: the agent probes each
// target interval after interval on the same RC QP, and rebuilds it (with
// exponential back-off) only after a failure.
//
// Contract: Open() prepares device, port and PD (or shares the rail's
// RailDevice) and does not connect.
// Run() sends opts.count probes (or stops at opts.stop / max_duration_ms),
// one after the other, in bursts of opts.burst that start opts.burst x
// opts.interval_ms apart (ProberOptions::burst), connecting first when needed; a connect that fails is recorded as a
// CONNECT error, except that with `fail_if_unreachable` a failure before the
// first successful connect ends the run with that error. Reconnects follow
// ReconnectBackoff() (jittered, so a fleet does not reconnect in lock-step).
// Every connect names the same random session id, so the agent replaces this
// prober's previous QP. The agent ends a session after its idle timeout
// (given in the rc_connect reply): a connection unused for half of that is
// rebuilt before the next probe, quietly (not a failure, not counted in
// reconnects), so a report interval longer than the agent's idle timeout
// raises no false alarm. The destructor tears the QP down; the agent's side
// then idles out.
#pragma once

#include <memory>

#include "common/status.h"
#include "probes/backoff.h"
#include "probes/prober.h"
#include "probes/rail_device.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

class RcPeer;

class RcProber {
 public:
  static Result<std::unique_ptr<RcProber>> Open(const ProberOptions& opts);
  static std::unique_ptr<RcProber> Open(std::shared_ptr<RailDevice> dev);
  const std::shared_ptr<RailDevice>& device() const { return dev_; }
  ~RcProber();

  Result<ProbeRun> Run(const ProberOptions& opts, bool fail_if_unreachable);

 private:
  RcProber() = default;

  std::shared_ptr<RailDevice> dev_;
  UdEndpointInfo target_;
  Backoff backoff_ = ReconnectBackoff();
  std::unique_ptr<RcPeer> peer_;  // declared last but two: destroyed before dev_
  std::string session_;          // random, sent with every rc_connect
  uint64_t last_used_ns_ = 0;    // the last probe on peer_
  bool ever_connected_ = false;
  uint64_t next_connect_ns_ = 0;
  uint64_t seq_ = 0;
  uint64_t peer_seq_ = 0;        // the device's event number noted before peer_ was made
};

}  // namespace rdmascope::probes
