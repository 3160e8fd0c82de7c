// The agent's prober: probes every configured target over UD and RC, one
// round per target per interval, and keeps the results as report "probes"
// entries until the reporting daemon collects them.
//
// Contract: Start() validates the options and starts one thread that keeps
// the target list (refresh_targets, once an interval) and one worker thread
// per target (at most kMaxTargets; targets past that get a CONNECT error
// entry each interval instead). Workers started together start staggered
// over half an interval; each then runs, every `interval_ms`, `count` UD
// probes then `count` RC probes to its own target, spaced (lone probes, no
// bursts: ProberOptions::burst 1), so a slow or dead target delays only its
// own rounds, never another target's (a round that overruns delays that worker's next one). The
// rail's device context and PD (RailDevice) are shared by all workers; each
// worker keeps its UD session (QP, CQ, buffer, address handle) and its RC
// connection from round to round and rebuilds them only after a device
// error (the UD QP failed: the RailDevice is reopened too) or, for RC, a
// failure (jittered back-off). The UD endpoint is asked for (ud_info) on
// first contact and again after a round that lost every UD probe (the
// target may have restarted). A target that cannot be reached yields an
// entry with a CONNECT error, never an exception or a stop. Collect()
// returns the entries gathered since the previous call (at most kMaxPending;
// the oldest are dropped first). Stop() (also the destructor) ends every
// thread within about one probe deadline (a worker waiting on a target's
// control port: within that port's deadline, at most 8 s).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "probes/probe_turn.h"
#include "probes/prober.h"

namespace rdmascope::probes {

class RcProber;
class UdSession;
class RailDeviceSlot;
struct RailDevice;

struct ProbeTarget {
  std::string name;   // the node name reports use; defaults to host
  std::string host;
  int control_port = kDefaultControlPort;
};

// "[NAME=]HOST[:PORT]" -> target; error names the bad part.
Result<ProbeTarget> ParseProbeTarget(const std::string& text);

struct SchedulerOptions {
  std::string device;
  int port = 1;
  std::string rail;  // set: probe this rail of every target, and name it in every entry
  std::optional<int> gid_index;
  std::optional<Ipv4Subnet> gid_subnet;  // pins the local GID by subnet (ProberOptions)
  ProbeClass probe_class;                // traffic class / SL of the probes
  std::vector<ProbeTarget> targets;
  uint64_t count = 10;          // probes per transport per target per round
  uint64_t spacing_ms = 100;    // between probes
  uint64_t interval_ms = 10000; // between round starts
  RcTuning tuning;
  std::string control_secret;  // the fleet secret, for the targets' control ports
  bool control_strict = true;  // with a secret: refuse targets that do not authenticate
  // When set, called once an interval from the scheduler's thread (it may
  // block for a few seconds): a value replaces `targets` (the workers of
  // targets no longer listed, or listed with another address, are stopped
  // with their connections; new ones are started); nullopt keeps the
  // current targets.
  std::function<std::optional<std::vector<ProbeTarget>>()> refresh_targets;
  // When set, called (from a worker's thread, without locks held) after an
  // entry whose target's health turned (probe_turn.h) against that target's
  // previous entry of the same transport: the agent reports early.
  std::function<void()> on_turn;
  // Test seam: when set, a worker calls it for each round instead of
  // probing (from the target's own thread) and pushes the entries it returns.
  std::function<std::vector<nlohmann::json>(const ProbeTarget&, const std::atomic<bool>& stop)> probe_round;
};

// Spacing between probes so that `count` UD and `count` RC probes to each of
// `targets` targets, probed one after another, take at most half of
// `interval_ms`; at least 1 ms. Targets are probed concurrently, so the
// agent passes targets = 1.
uint64_t SpreadSpacingMs(uint64_t interval_ms, uint64_t count, size_t targets);

class ProbeScheduler {
 public:
  static constexpr size_t kMaxPending = 1000;
  static constexpr size_t kMaxTargets = 256;  // worker threads per rail (the collector hands out <= 128)

  static Result<std::unique_ptr<ProbeScheduler>> Start(const SchedulerOptions& opts);
  ~ProbeScheduler();
  void Stop();

  std::vector<nlohmann::json> Collect();
  // Targets with a running worker (for tests and diagnostics).
  size_t WorkerCount();

 private:
  struct Worker;

  ProbeScheduler();
  void Loop();
  void RefreshTargets();
  void Reconcile();
  void WorkerLoop(Worker& w);
  void Round(Worker& w);
  void ProbeUd(Worker& w, const ProberOptions& o, const std::shared_ptr<RailDevice>& dev);
  void ProbeRc(Worker& w, const ProberOptions& o, const std::shared_ptr<RailDevice>& dev);
  void PushFailure(const ProbeTarget& t, const ProberOptions& o, const char* transport, const std::string& why);
  void Push(nlohmann::json entry);
  ProberOptions BaseOptions(const ProbeTarget& t) const;

  SchedulerOptions opts_;  // targets: scheduler thread only; the rest is fixed after Start
  std::unique_ptr<RailDeviceSlot> device_;
  std::map<std::string, std::unique_ptr<Worker>> workers_;  // by target name; scheduler thread only
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<nlohmann::json> pending_;
  // Under mu_: the health of each target's newest entry, by (target, transport).
  std::map<std::pair<std::string, std::string>, RoundHealth> last_health_;
  std::atomic<size_t> worker_count_{0};
  std::thread thread_;
};

}  // namespace rdmascope::probes
