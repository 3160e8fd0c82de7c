// Probers: measure one target now over UD or RC and return every sample and
// every error.
//
// Contract: a run ends after `count` probes, when *stop is set, or at
// max_duration_ms, whichever is first. Each probe waits at most timeout_ms
// for its completions; silence counts as loss (UD) or as a PROBE_DEADLINE
// error (RC). A probe cut short by *stop is neither sent nor lost: it is not
// recorded as a sample, and the flush, deadline and connect errors a stop
// causes are not recorded (RecordError). Setup failures (device, port, first contact with the target)
// return an error; failures during the run are recorded in ProbeRun::errors,
// and RC reconnects with jittered exponential back-off (ReconnectBackoff, backoff.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "probes/control_protocol.h"
#include "probes/latency_summary.h"
#include "probes/local_port.h"
#include "probes/qp_setup.h"
#include "probes/responder.h"
#include "probes/wc_error.h"

namespace rdmascope::probes {

struct ProberOptions {
  std::string device;
  int port = 1;
  std::optional<int> gid_index;   // default: the port's RoCE v2 IPv4-mapped GID
  std::optional<Ipv4Subnet> gid_subnet;  // else: the RoCE v2 GID in this subnet (local_port.h)
  ProbeClass probe_class;         // traffic class / SL of every probe (and, RC, of the responder's echoes)
  std::string host;               // the target agent's address
  std::string rail;               // set: probe the target's endpoint of this rail name
  int control_port = kDefaultControlPort;
  uint64_t count = 1000;
  uint64_t interval_ms = 10;
  // Probes go in bursts of `burst`: a burst's first probe (its primer, which
  // wakes the responder; ProbeSample::primer) leaves every burst x
  // interval_ms, the others each right after the previous one finished (UD:
  // or interval_ms after it left, if sooner, so a lost probe holds its burst
  // up by one interval, not by its deadline), so they find the responder
  // inside its hot window and measure the path, not its wake-up. 1: no bursts, a probe every interval_ms (interval 0: each
  // right after the previous), none a primer. The average rate is the same.
  uint64_t burst = 1;
  uint64_t timeout_ms = 1000;     // per-probe deadline
  uint64_t max_duration_ms = 600000;
  // Busy-poll budget before sleeping on the completion channel: each wait
  // spins 3 x the typical RTT, at most spin_ns, and none when that RTT is over
  // spin_ns; the first probe spins all of it (adaptive_spin.h, ProberSpin).
  uint64_t spin_ns = 2000000;
  RcTuning tuning;
  std::string control_secret;     // set: authenticate on the control port (probes/control_auth.h)
  bool control_strict = true;     // with a secret: refuse an agent that does not authenticate (v2)
  bool rc_read = true;            // RC: RDMA READ the target's buffer after each ping-pong
  bool test_bad_rkey = false;     // self-test: READ with a wrong rkey (expects REM_ACCESS_ERR)
  bool reconnect_each_probe = false;  // self-test: tear down and rebuild the RC QP after every probe
  std::function<void(const ProbeError&)> on_error;  // called as each error is recorded
  const std::atomic<bool>* stop = nullptr;
};

struct ProbeRun {
  std::string transport;          // "ud" or "rc"
  LocalPort local;
  UdEndpointInfo target;          // the endpoint probed
  std::vector<ProbeSample> samples;
  std::vector<ProbeError> errors;
  uint64_t flushed = 0;           // WR_FLUSH_ERR completions after a first failure
  uint64_t reconnects = 0;
  uint32_t local_qpn = 0;         // the QPs in use now; RecordError stamps errors with them
  uint32_t remote_qpn = 0;
  bool device_timestamps = false;
  double start_wall_ms = 0;       // when the run started / ended, ms since the epoch
  double end_wall_ms = 0;
  int open_fds_before = -1;       // reconnect_each_probe: fds before the first connect
  int open_fds_after = -1;        // ... and after the last teardown
};

Result<ProbeRun> RunUdProbe(const ProberOptions& opts);
Result<ProbeRun> RunRcProbe(const ProberOptions& opts);

// --- helpers shared by both probers ---

// Asks the agent at host:port for its UD endpoints over `conn`, authenticating
// first when `secret` is set (probes/control_auth.h; `strict` refuses an agent
// that does not), and reads every page of ud_info (probes/control_protocol.h):
// the result holds all of them, `next` unset. `seal`, when given, receives the
// session's seal: later requests on `conn` must go through it. A line over
// kMaxLineBytes (an older agent's one-line list) is an error naming it.
Result<UdInfoReply> FetchUdInfo(class LineConn& conn, uint64_t deadline_ns, const std::string& secret = "",
                                bool strict = true, class ControlSeal* seal = nullptr);
// The endpoint to probe: with a `rail` and a target that names rails, the
// first endpoint of that rail (error when the target serves none: it has no
// such rail, or it is down); else the one whose GID is the IPv4-mapped form of `host` if there is one,
// else the first one of the same link layer as `local`.
Result<UdEndpointInfo> ChooseEndpoint(const UdInfoReply& info, const std::string& host,
                                      const LocalPort& local, const std::string& rail = "");
// Appends `e` to run.errors (stamping its probe_index and, when unset, the
// run's QP numbers) and calls opts.on_error. Once *opts.stop is set, flush,
// deadline and connect errors are the stop's doing and are dropped; other
// completion errors are still recorded. Returns whether `e` was recorded.
bool RecordError(ProbeRun& run, const ProberOptions& opts, ProbeError e);
// True when *opts.stop is set.
bool Stopping(const ProberOptions& opts);
// Probes answered after the last recorded error (all of them when there is none).
uint64_t ReceivedAfterLastError(const ProbeRun& run);
// Number of open file descriptors of this process (-1 if /proc is unreadable).
int CountOpenFds();
// Sleeps until deadline_ns or *stop, in slices of at most 100 ms.
void SleepUntil(uint64_t deadline_ns, const std::atomic<bool>* stop);

}  // namespace rdmascope::probes
