// RailSupervisor: keeps every rail of the node served and probed through
// link flaps, device resets and removals. Never ends the agent.
//
// Contract:
// - Start() starts the control server (the one setup error: the port cannot
//   be bound) and a thread that reconciles at once, then every second (or
//   interval, when shorter) and whenever an async event arrives (Wake()).
//   A device whose uverbs node is gone is being removed (no event says so):
//   it is released at once, since its removal waits for every open context.
// - A reconcile reads every port's state from sysfs (cheap), names the rails
//   (agent/daemon/rails.h: ports ever seen stay known and keep their names,
//   so names shift neither when a device goes nor when one appears late; with
//   names_file they are kept on disk too (rail_names_file.h), so a restart
//   names every port as before; one absent at the restart gets its name back
//   when it returns, unless a port never seen before took it meanwhile (a
//   name is not held for a port that is gone: a replaced adapter under a new
//   device name takes its position's name); the
//   report's "rails" label follows RailNames()), starts an async event
//   watcher per present device, serves (responder) exactly the ACTIVE rails, runs one prober per ACTIVE rail and
//   stops the prober of a rail that is not ACTIVE. The responder changes per
//   port (probes/responder.h): a rail's flap or new GID never touches another
//   rail's QPs. A device whose watcher reported DEVICE_FATAL or removal is
//   released at once (its responder QPs and probers stopped; it is served
//   under a new epoch) so its removal completes; it is used again when it is
//   back (within one interval).
// - on_change (from the supervisor's thread) is called when a rail changed
//   state or a port/device event arrived: the daemon reports at once.
// - Collect() returns the probe entries since the previous call, each with
//   "rail"; for every rail that is not ACTIVE, one entry per target and
//   transport with "not_run" ("local port DOWN", "local device missing") and
//   nothing sent: a local fault is never reported as loss to the peer.
// - RailsJson(): [{name, device, port, state}] for the report.
// - A reconcile never waits on the network: the targets of rails that are not
//   ACTIVE (for their not-run entries) are fetched by a thread of their own
//   once an interval (only Start()'s first reconcile fetches them itself), and
//   probers are stopped by another thread, which keeps what they collected.
//   So a collector outage or a prober stuck in a setup never delays a device
//   event.
// - Every reconcile also builds again a UD responder that stopped
//   (Responder::Heal) and keeps the responder's events (failures, recoveries,
//   rebuilds) for TakeResponderEvents(); events ask for a report at once.
// Stop() (also the destructor) stops everything it started.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/node/async_events.h"
#include "agent/daemon/daemon_log.h"
#include "agent/daemon/rail_paths.h"
#include "agent/daemon/rails.h"
#include "common/status.h"
#include "probes/probe_scheduler.h"
#include "probes/responder.h"

namespace rdmascope::agent {

struct RailSupervisorOptions {
  std::string sysfs_root = "/sys";
  std::vector<std::string> devices;  // --device; empty: every device (unless rails are named)
  std::vector<RailSpec> rails;       // --rail
  probes::ResponderOptions responder;
  uint64_t probe_count = 10;
  RailPaths paths;  // each rail's GID pin and probe class
  uint64_t interval_ms = 10000;
  // Targets of one rail; nullopt keeps the previous ones. Unset: no probing.
  std::function<std::optional<std::vector<probes::ProbeTarget>>(const std::string& rail)> targets;
  std::function<void(const std::string& why)> on_change;
  // Called from a prober's thread when a target's probe results turned bad
  // or good (probes/probe_turn.h): the daemon reports early (ReportSoon).
  std::function<void()> on_probe_turn;
  // Where the names given to ports are kept across restarts
  // (rail_names_file.h); "": not kept.
  std::string names_file;
  LogFn log;
};

class RailSupervisor {
 public:
  static Result<std::unique_ptr<RailSupervisor>> Start(RailSupervisorOptions opts);
  ~RailSupervisor();
  void Stop();
  void Wake();

  std::vector<nlohmann::json> Collect();
  // The responder's events since the previous call, in the report's
  // "responder_events" shape (schemas/REPORT_FORMAT.md); [] when none.
  nlohmann::json TakeResponderEvents();
  nlohmann::json RailsJson();
  // The rail names currently configured (for the report's labels).
  std::vector<std::string> RailNames();

 private:
  struct RailState {
    RailSpec spec;
    std::string state = "unknown";  // ACTIVE, DOWN, INIT, ..., "missing"
    std::unique_ptr<probes::ProbeScheduler> prober;
    uint64_t prober_epoch = 0;
    std::vector<probes::ProbeTarget> targets;  // last known, for not-run entries
  };

  explicit RailSupervisor(RailSupervisorOptions opts) : opts_(std::move(opts)) {}
  void Loop();
  // `first` (from Start): the targets of rails that are not ACTIVE are fetched
  // here; afterwards by FetchLoop, so a reconcile never waits on the network.
  void Reconcile(bool first = false);
  // Fetches the targets of the rails in fetch_rails_ (not ACTIVE) when asked.
  void FetchLoop();
  // Stops the probers handed to it, keeping what they collected.
  void RetireLoop();
  void FetchTargets(const std::vector<std::string>& rails);
  void OnEvent(const AsyncEvent& e);
  // State name of every port in sysfs, by (device, port).
  std::map<PortRef, std::string> DiscoverPorts() const;
  // Merges the rails as named now into remembered_, saving names_file when it changed.
  void RememberNames(const std::vector<RailSpec>& specs);
  // Hands r's prober to RetireLoop (under no lock); never waits for it.
  void StopProber(RailState& r);

  RailSupervisorOptions opts_;
  std::unique_ptr<probes::Responder> responder_;
  std::string served_signature_;
  std::set<PortRef> known_;
  std::vector<RailSpec> specs_;  // the rails as last named: a port keeps its name (ComputeRails)
  std::vector<RailSpec> remembered_;  // every port named so far, this run and earlier ones (names_file)
  bool names_unsaved_ = false;        // remembered_ differs from names_file (a save failed)
  std::map<std::string, std::unique_ptr<AsyncEventWatcher>> watchers_;
  std::map<std::string, uint64_t> epoch_;  // per device: bumped when it went away
  std::chrono::steady_clock::time_point last_down_fetch_{};  // targets of down rails, once an interval

  std::mutex mu_;  // guards the members below
  std::condition_variable cv_;
  bool stop_ = false;
  bool wake_ = false;
  std::set<std::string> gone_;          // devices whose watcher ended, not yet released
  std::vector<std::string> event_log_;  // async events not yet logged
  std::vector<RailState> rails_;
  std::vector<nlohmann::json> pending_;  // entries of stopped probers
  std::vector<probes::ResponderEvent> responder_events_;  // under mu_, not yet reported
  int64_t last_collect_ms_ = 0;
  std::vector<std::string> fetch_rails_;  // rails whose targets FetchLoop fetches next
  bool fetch_due_ = false;
  std::vector<std::unique_ptr<probes::ProbeScheduler>> retiring_;  // probers RetireLoop stops
  std::thread thread_;
  std::thread fetch_thread_;
  std::thread retire_thread_;
};

}  // namespace rdmascope::agent
