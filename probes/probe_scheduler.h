// The agent's prober: probes every configured target over UD and RC, one
// round per interval, and keeps the results as report "probes" entries until
// the reporting daemon collects them.
//
// Contract: Start() validates the options and starts one thread; each round
// runs, per target, `count` UD probes then `count` RC probes (RC on a
// connection kept from round to round). A target that cannot be reached
// yields an entry with a CONNECT error, never an exception or a stop.
// Rounds start every `interval_ms` (a round that overruns delays the next).
// Collect() returns the entries gathered since the previous call (at most
// kMaxPending; the oldest are dropped first). Stop() (also the destructor)
// ends the thread within about one probe deadline.
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
#include "probes/prober.h"

namespace rdmascope::probes {

class RcProber;

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
  // When set, called at the start of every round from the prober's thread
  // (it may block for a few seconds): a value replaces `targets` (RC
  // connections to targets no longer listed are closed, and spacing_ms is
  // recomputed so a round spreads over at most half the interval); nullopt
  // keeps the current targets.
  std::function<std::optional<std::vector<ProbeTarget>>()> refresh_targets;
};

// Spacing between probes so that `count` UD and `count` RC probes to each of
// `targets` targets take at most half of `interval_ms`; at least 1 ms.
uint64_t SpreadSpacingMs(uint64_t interval_ms, uint64_t count, size_t targets);

class ProbeScheduler {
 public:
  static constexpr size_t kMaxPending = 1000;

  static Result<std::unique_ptr<ProbeScheduler>> Start(const SchedulerOptions& opts);
  ~ProbeScheduler();
  void Stop();

  std::vector<nlohmann::json> Collect();

 private:
  ProbeScheduler() = default;
  void Loop();
  void Round();
  void RefreshTargets();
  void Push(nlohmann::json entry);
  ProberOptions BaseOptions(const ProbeTarget& t) const;

  SchedulerOptions opts_;
  std::map<std::string, std::unique_ptr<RcProber>> rc_;  // by target name; loop thread only
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<nlohmann::json> pending_;
  std::thread thread_;
};

}  // namespace rdmascope::probes
