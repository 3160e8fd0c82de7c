#include "agent/daemon/daemon.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "agent/daemon/daemon_inventory.h"
#include "agent/node/health_state.h"
#include "common/sd_notify.h"
#include "common/synced_file.h"

namespace rdmascope::agent {
namespace {

using Clock = std::chrono::steady_clock;

// RunOnce replays the spool for at most this long (and max_replay_per_cycle reports).
constexpr auto kOnceReplayBudget = std::chrono::seconds(30);

int64_t SystemWallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string FormatSeconds(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

// The next due time after `due`, skipping the slots already missed.
Clock::time_point Advance(Clock::time_point due, Clock::duration every, Clock::time_point now) {
  due += every;
  return due <= now ? now + every : due;
}

}  // namespace

AgentDaemon::AgentDaemon(AgentConfig config, DaemonHooks hooks)
    : config_(std::move(config)), hooks_(std::move(hooks)), fs_(config_.sysfs_root), ids_(config_.node_name) {
  hooks_.log = OrStderr(std::move(hooks_.log));
  if (!hooks_.wall_ms) hooks_.wall_ms = SystemWallMs;
  if (!hooks_.notify) hooks_.notify = SdNotify;
  boot_id_ = ReadHostBootId();
}

Result<std::unique_ptr<AgentDaemon>> AgentDaemon::Create(const AgentConfig& config, DaemonHooks hooks) {
  if (config.collector.empty()) {
    return Status::Error("no collector configured: set `collector = URL` in the config file or pass --collector");
  }
  Status valid = ValidateAgentConfig(config);
  if (!valid.ok()) return valid;
  if (config.report_interval.count() <= 0 || config.inventory_interval.count() <= 0) {
    return Status::Error("interval and inventory_interval must be above 0");
  }
  std::unique_ptr<AgentDaemon> d(new AgentDaemon(config, std::move(hooks)));
  auto spool = Spool::Open(config.spool_dir, config.spool_max_bytes, d->hooks_.log);
  if (!spool.ok()) return spool.status();
  d->spool_ = std::move(spool).value();
  AgentDaemon* raw = d.get();
  d->spool_->set_on_drop([raw](const char* reason, int64_t made_at_ms) {
    raw->losses_.Note(reason, made_at_ms);
    raw->SaveLosses();
  });
  if (d->hooks_.spool_write_file) d->spool_->set_write_file(d->hooks_.spool_write_file);
  ReporterOptions ro = d->hooks_.reporter;
  ro.collector = config.collector;
  ro.token_file = config.token_file;
  ro.ca_file = config.ca_file;
  auto reporter = Reporter::Create(ro, d->spool_.get(), d->hooks_.log);
  if (!reporter.ok()) return reporter.status();
  d->reporter_ = std::move(reporter).value();
  return d;
}

void AgentDaemon::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
  }
  cv_.notify_all();
}

void AgentDaemon::TriggerReport() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    report_now_ = true;
  }
  cv_.notify_all();
}

void AgentDaemon::ReportSoon() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    report_soon_ = true;
  }
  cv_.notify_all();
}

void AgentDaemon::WaitUntil(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, deadline, [this] { return stop_.load() || report_now_ || report_soon_; });
}

void AgentDaemon::Notify(const std::string& state) {
  Status s = hooks_.notify(state);
  if (!s.ok() && !notify_failed_) hooks_.log(s.message() + " (logged once)");
  if (!s.ok()) notify_failed_ = true;
}

void AgentDaemon::Guarded(const char* what, const std::function<void()>& step) {
  try {
    step();
  } catch (const std::exception& e) {
    hooks_.log(std::string(what) + " failed: " + e.what() + "; continuing");
  } catch (...) {
    hooks_.log(std::string(what) + " failed: unknown exception; continuing");
  }
}

void AgentDaemon::RefreshInventory() {
  inventory_ = ReadFullInventory(fs_, hooks_.verbs.get(), hooks_.only_device);
}

std::pair<std::string, std::string> AgentDaemon::MakeReport() {
  Inventory inv = WithFreshCounters(fs_, inventory_);
  std::vector<nlohmann::json> probes;
  if (hooks_.collect_probes) {
    try {
      probes = hooks_.collect_probes();
    } catch (const std::exception& e) {
      inv.warnings.push_back(std::string("probe results unavailable: ") + e.what());
    }
  }
  const int64_t now_ms = hooks_.wall_ms();
  std::string id = ids_.Next(now_ms);
  ReportHeader header;
  header.node = config_.node_name;
  header.interval_ms = config_.report_interval.count();
  header.labels = ReportLabels(config_);
  if (hooks_.rail_names) {
    std::string names;
    for (const auto& n : hooks_.rail_names()) names += (names.empty() ? "" : ",") + n;
    if (!names.empty()) header.labels["rails"] = names;
  }
  header.boot_id = boot_id_;
  header.spool_dropped = spool_->dropped();
  if (hooks_.rails) header.rails = hooks_.rails();
  nlohmann::json fabric = nlohmann::json::object();
  if (hooks_.collect_fabric) {
    try {
      hooks_.collect_fabric(inv, &fabric, &inv.warnings);
    } catch (const std::exception& e) {
      inv.warnings.push_back(std::string("fabric view unavailable: ") + e.what());
    }
  }
  nlohmann::json report = BuildReport(header, id, now_ms, inv, probes);
  for (auto& [k, v] : fabric.items()) report[k] = std::move(v);
  if (hooks_.responder_events) {
    nlohmann::json events = hooks_.responder_events();
    if (events.is_array() && !events.empty()) report["responder_events"] = std::move(events);
  }
  nlohmann::json losses = losses_.ToJson();
  if (!losses.empty()) report["report_losses"] = std::move(losses);
  carried_ended_ = losses_.EndedIds();
  return {id, SerializeReport(report)};
}

void AgentDaemon::LoadLosses() {
  std::ifstream in(losses_path());
  if (!in) return;  // none kept
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("report_losses")) {
    hooks_.log("report losses " + losses_path() + ": not what this agent writes; ignored");
    return;
  }
  losses_ = ReportLosses::FromJson(j["report_losses"]);
  saved_losses_ = text.str();
  if (!losses_.episodes().empty())
    hooks_.log("report losses: " + std::to_string(losses_.episodes().size()) +
               " episode(s) kept by an earlier run, told to the collector with the next report");
}

void AgentDaemon::SaveLosses() {
  if (!persist_losses_) return;
  const std::string text = nlohmann::json{{"report_losses", losses_.ToJson()}}.dump() + "\n";
  if (text == saved_losses_) return;
  if (Status s = ReplaceFileAtomically(losses_path(), text); !s.ok()) {
    hooks_.log("report losses: " + s.message() + " (a restart would forget them)");
    return;
  }
  saved_losses_ = text;
}

PostOutcome AgentDaemon::SubmitFresh(const std::string& id, const std::string& body, Clock::time_point deadline) {
  PostOutcome o = reporter_->Submit(id, body, deadline, &stop_);
  if (o.delivery == Delivery::kDelivered) {
    losses_.Acknowledge(carried_ended_);
    // The collector takes reports and nothing is left behind: what was lost so far is one finished episode.
    if (spool_->count() == 0) losses_.EndOpen();
    SaveLosses();
  }
  return o;
}

Status AgentDaemon::Run() {
  const auto watchdog = WatchdogPingInterval();
  LoadLosses();
  persist_losses_ = true;
  RefreshInventory();
  Notify("READY=1\nSTATUS=reporting to " + config_.collector);
  hooks_.log("reporting to " + config_.collector + " every " + FormatSeconds(config_.report_interval) +
             " as node " + config_.node_name + " (" + std::to_string(inventory_.devices.size()) + " device(s))");
  Clock::time_point next_report = Clock::now();
  Clock::time_point next_inventory = Clock::now() + config_.inventory_interval;
  Clock::time_point last_report = Clock::now();
  const Clock::duration soon_gap = config_.report_interval / 4;
  auto report = [&] {
    Guarded("report", [this] {
      auto [id, body] = MakeReport();
      SubmitFresh(id, body, Clock::now() + config_.report_interval / 2);
    });
    last_report = Clock::now();
    soon_pending_ = false;
  };
  while (!stop_.load()) {
    Clock::time_point now = Clock::now();
    bool triggered = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      triggered = report_now_;
      report_now_ = false;
      soon_pending_ = soon_pending_ || report_soon_;
      report_soon_ = false;
    }
    if (triggered) {
      Guarded("inventory", [this] { RefreshInventory(); });
      report();
    }
    if (now >= next_inventory) {
      Guarded("inventory", [this] { RefreshInventory(); });
      next_inventory = Advance(next_inventory, config_.inventory_interval, Clock::now());
    }
    if (now >= next_report) {
      report();
      next_report = Advance(next_report, config_.report_interval, Clock::now());
    } else if (soon_pending_ && Clock::now() >= last_report + soon_gap) {
      report();
    }
    Clock::time_point wake = std::min(next_report, next_inventory);
    if (soon_pending_) wake = std::min(wake, last_report + soon_gap);
    if (watchdog) {
      Notify("WATCHDOG=1");
      wake = std::min(wake, Clock::now() + *watchdog);
    }
    WaitUntil(wake);
  }
  Notify("STOPPING=1");
  Guarded("last report", [this] {
    // This process will not say more about its losses: the spooled last report tells them ended.
    losses_.EndOpen();
    SaveLosses();
    auto [id, body] = MakeReport();
    auto lock = spool_->Lock();
    Status s = spool_->Put(body);
    if (s.ok()) {
      hooks_.log("stopping: last report " + id + " written to the spool");
    } else {
      hooks_.log("stopping: last report " + id + " lost: " + s.message());
    }
  });
  const ReporterStats& st = reporter_->stats();
  hooks_.log("stopped: delivered " + std::to_string(st.delivered) + ", replayed " + std::to_string(st.replayed) +
             ", spooled " + std::to_string(st.spooled) + ", rejected " + std::to_string(st.rejected) +
             ", dropped from the spool " + std::to_string(spool_->dropped()) + ", lost " + std::to_string(st.lost));
  return Status::Ok();
}

Status AgentDaemon::RunOnce() {
  try {
    return RunOnceUnguarded();
  } catch (const std::exception& e) {
    return Status::Error(std::string("report failed: ") + e.what());
  }
}

Status AgentDaemon::RunOnceUnguarded() {
  RefreshInventory();
  auto [id, body] = MakeReport();
  const uint64_t lost_before = reporter_->stats().lost;
  PostOutcome o = SubmitFresh(id, body, Clock::now() + kOnceReplayBudget);
  switch (o.delivery) {
    case Delivery::kDelivered:
      return Status::Ok();
    case Delivery::kRejected:
      return Status::Error("report " + id + " rejected by the collector (HTTP " + std::to_string(o.http_status) +
                           "): " + o.detail);
    case Delivery::kRetry:
      break;
  }
  std::string cause = o.http_status ? "HTTP " + std::to_string(o.http_status) + ": " + o.detail : o.detail;
  if (reporter_->stats().lost != lost_before) {
    return Status::Error("report " + id + " not delivered (" + cause + ") and could not be spooled");
  }
  return Status::Error("report " + id + " not delivered (" + cause + "); spooled in " + spool_->dir());
}

}  // namespace rdmascope::agent
