// AgentDaemon: the agent's reporting loop. Reads the inventory, collects probe
// summaries, builds a report and hands it to the reporter, on a schedule.
//
// Contract of Run():
// - reads the full inventory (sysfs + verbs) at start and every
//   inventory_interval, then sends "READY=1" to the service manager;
// - every report_interval (the first one at once), and at once after
//   TriggerReport() (then with a fresh full inventory), and after
//   ReportSoon() (spaced, see there), reads fresh counters
//   and port state, phys state and rate, calls
//   hooks.collect_probes, builds one report and submits it (delivered, or
//   spooled; the spool is drained after a delivery, for at most half an
//   interval);
// - sends "WATCHDOG=1" after every loop pass and wakes at least every half
//   $WATCHDOG_USEC when that is set;
// - returns promptly after Stop(): it waits on a condition variable, never
//   sleeps; work under way (at most one HTTP exchange, bounded by the
//   reporter's timeouts) finishes first. On the way out it sends
//   "STOPPING=1" and writes one last report (probe results since the last
//   report) to the spool without sending it, so nothing collected is lost and
//   shutdown does not wait on the network.
// - reports the agent could not keep (spool cap, full disk, write errors)
//   are grouped into episodes (report_losses.h) and every report carries the
//   unacknowledged ones as "report_losses"; after a delivery that leaves the
//   spool empty the open episodes end, and an ended episode is dropped once
//   a report that carried it ended was delivered; the last report, spooled
//   on the way out, carries every episode ended. Run() keeps the episodes in
//   SPOOL_DIR/lost-reports.json as well (written atomically at every
//   change, read back at the start of Run()), so a restart or a crash does
//   not forget them; RunOnce() keeps its own in memory only.
// RunOnce(): one report now (full inventory, counters, probes); ok when the
// collector took it (then the spool is replayed too: at most
// max_replay_per_cycle reports within 30 s), otherwise an error
// naming the cause, with the report spooled when it can be retried.
// Stop() may be called from any thread, also before Run(). Run() and RunOnce()
// are called from one thread. Nothing here throws: an exception from a hook
// (collect_probes) becomes a warning in that report; any other exception in a
// loop step is logged and the loop goes on.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/daemon/agent_config.h"
#include "agent/daemon/daemon_log.h"
#include "agent/daemon/report_builder.h"
#include "agent/daemon/report_losses.h"
#include "agent/daemon/reporter.h"
#include "agent/daemon/spool.h"
#include "agent/node/sysfs_reader.h"
#include "agent/node/verbs_info.h"
#include "common/model.h"
#include "common/status.h"

namespace rdmascope::agent {

struct DaemonHooks {
  // Per-target probe summaries gathered since the previous call, each already
  // in the report's "probes" entry shape. Called once per report from the
  // daemon's thread; it should return quickly. Unset: no probes.
  std::function<std::vector<nlohmann::json>()> collect_probes;
  // InfiniBand fabric view (agent/daemon/fabric_report.h): adds "neighbours" and,
  // when a sweep is due, "fabric" to the report object; warnings go to the
  // report's inventory warnings. Unset: no fabric keys.
  std::function<void(const Inventory&, nlohmann::json*, std::vector<std::string>*)> collect_fabric;
  // Verbs enrichment of the full inventory; null: sysfs only.
  std::shared_ptr<VerbsInfoSource> verbs;
  // Non-empty: reports cover this device only (the agent's --device), so an
  // agent scoped to one adapter does not report its neighbours' ports.
  std::string only_device;
  // Milliseconds since the epoch for generated_at_ms; unset: the system clock.
  std::function<int64_t()> wall_ms;
  // Service manager notification; unset: SdNotify.
  std::function<Status(const std::string&)> notify;
  // The responder's events since the previous call, for the report's
  // "responder_events" (an array; left out when empty); unset: none.
  std::function<nlohmann::json()> responder_events;
  // The agent's rails and their state for the report's "rails"; unset: none.
  std::function<nlohmann::json()> rails;
  // The rail names now, for each report's "rails" label (which the
  // collector's pinglists read); unset or empty: the configured labels only.
  std::function<std::vector<std::string>()> rail_names;
  // How the spool writes a file (Spool::WriteFileFn); unset: real files.
  Spool::WriteFileFn spool_write_file;
  LogFn log;  // unset: stderr
  // Reporter tuning (timeouts, replay batch); collector and token_file come from the config.
  ReporterOptions reporter;
};

class AgentDaemon {
 public:
  // Fails when no collector is configured, the token file cannot be read, or
  // the spool directory cannot be opened; the error names which.
  static Result<std::unique_ptr<AgentDaemon>> Create(const AgentConfig& config, DaemonHooks hooks);

  Status Run();
  Status RunOnce();
  void Stop();
  bool stop_requested() const { return stop_.load(); }
  // Any thread: report now (a port or device changed): Run() re-reads the
  // full inventory and sends a report at once, then keeps its schedule.
  void TriggerReport();
  // Any thread: probe results changed (a path turned bad or good): Run()
  // sends a report without re-reading the inventory as soon as the last
  // report is a quarter of an interval old (at once when it is older), then
  // keeps its schedule. Calls in between make one report, so a fleet-wide
  // fault costs each agent at most one extra report per quarter interval.
  void ReportSoon();

  // Read these from the thread that runs Run()/RunOnce(), or after it returned.
  const ReporterStats& reporter_stats() const { return reporter_->stats(); }
  uint64_t spool_dropped() const { return spool_->dropped(); }
  size_t spool_count() const { return spool_->count(); }
  const ReportLosses& report_losses() const { return losses_; }

 private:
  AgentDaemon(AgentConfig config, DaemonHooks hooks);
  Status RunOnceUnguarded();
  void RefreshInventory();
  // Builds one report; returns its id and text.
  std::pair<std::string, std::string> MakeReport();
  std::string losses_path() const { return config_.spool_dir + "/lost-reports.json"; }
  // Reads the episodes an earlier run kept; a file that cannot be read is logged and ignored.
  void LoadLosses();
  // Writes losses_ to losses_path() when it changed (Run() only); a failure is logged.
  void SaveLosses();
  // Submits a report MakeReport() just built and keeps the loss episodes in
  // step with its outcome.
  PostOutcome SubmitFresh(const std::string& id, const std::string& body, std::chrono::steady_clock::time_point deadline);
  void Notify(const std::string& state);
  // Runs one step of the loop; an exception (from a hook, or bad_alloc) is
  // logged naming the step and does not end the loop.
  void Guarded(const char* what, const std::function<void()>& step);
  // Waits until `deadline` or Stop(), whichever is first.
  void WaitUntil(std::chrono::steady_clock::time_point deadline);

  AgentConfig config_;
  DaemonHooks hooks_;
  SysfsReader fs_;
  ReportIdGenerator ids_;
  std::unique_ptr<Spool> spool_;
  std::unique_ptr<Reporter> reporter_;
  ReportLosses losses_;
  std::vector<uint64_t> carried_ended_;  // the episodes the last built report carried as ended
  bool persist_losses_ = false;          // Run(): losses_ is kept in losses_path()
  std::string saved_losses_;             // what the file holds now
  Inventory inventory_;  // the last full inventory, without counters
  bool notify_failed_ = false;
  std::string boot_id_;

  std::atomic<bool> stop_{false};
  bool report_now_ = false;   // under mu_
  bool report_soon_ = false;  // under mu_; taken by Run() into soon_pending_
  bool soon_pending_ = false;  // Run()'s thread only
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace rdmascope::agent
