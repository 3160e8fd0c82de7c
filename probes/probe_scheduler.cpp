#include "probes/probe_scheduler.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <iterator>
#include <chrono>
#include <cstdlib>

#include "probes/probe_clock.h"
#include "probes/probe_json.h"
#include "probes/rail_device.h"
#include "probes/rc_prober.h"
#include "probes/ud_session.h"

namespace rdmascope::probes {

Result<ProbeTarget> ParseProbeTarget(const std::string& text) {
  ProbeTarget t;
  std::string rest = text;
  auto eq = rest.find('=');
  if (eq != std::string::npos) {
    t.name = rest.substr(0, eq);
    rest = rest.substr(eq + 1);
  }
  auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(':') == colon) {
    const std::string p = rest.substr(colon + 1);
    errno = 0;
    char* end = nullptr;
    long port = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || errno != 0 || port < 1 || port > 65535) {
      return Status::Error("probe target '" + text + "': bad port '" + p + "'");
    }
    t.control_port = int(port);
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return Status::Error("probe target '" + text + "': missing host");
  t.host = rest;
  if (t.name.empty()) t.name = t.host;
  return t;
}

// One target's thread and the resources it keeps from round to round.
struct ProbeScheduler::Worker {
  ProbeTarget target;
  std::atomic<bool> stop{false};
  std::unique_ptr<UdSession> ud;
  std::unique_ptr<RcProber> rc;
  bool refresh_ud = false;  // ask for the UD endpoint again before the next UD run
  uint64_t start_delay_ms = 0;  // before the first round (staggered starts)
  std::thread thread;
};

ProbeScheduler::ProbeScheduler() = default;

Result<std::unique_ptr<ProbeScheduler>> ProbeScheduler::Start(const SchedulerOptions& opts) {
  if (opts.device.empty()) return Status::Error("probing needs a device (--device or --rail)");
  if (opts.count == 0 || opts.interval_ms == 0) return Status::Error("probe count and interval must be > 0");
  Status s = ValidateTuning(opts.tuning);
  if (!s.ok()) return s;
  s = ValidateProbeClass(opts.probe_class);
  if (!s.ok()) return s;
  std::unique_ptr<ProbeScheduler> p(new ProbeScheduler());
  p->opts_ = opts;
  p->device_ = std::make_unique<RailDeviceSlot>(opts.device, opts.port, opts.gid_index, opts.gid_subnet);
  p->thread_ = std::thread([raw = p.get()] { raw->Loop(); });
  return p;
}

ProbeScheduler::~ProbeScheduler() { Stop(); }

void ProbeScheduler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  // The scheduler thread is gone: workers_ is ours. Stop them all, then wait.
  {
    std::lock_guard<std::mutex> lock(mu_);  // under mu_: a worker's wait cannot miss it
    for (auto& [name, w] : workers_) w->stop.store(true);
  }
  cv_.notify_all();
  for (auto& [name, w] : workers_)
    if (w->thread.joinable()) w->thread.join();
  workers_.clear();
  worker_count_.store(0);
}

std::vector<nlohmann::json> ProbeScheduler::Collect() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<nlohmann::json> out(pending_.begin(), pending_.end());
  pending_.clear();
  return out;
}

size_t ProbeScheduler::WorkerCount() { return worker_count_.load(); }

void ProbeScheduler::Push(nlohmann::json entry) {
  if (!opts_.rail.empty()) entry["rail"] = opts_.rail;
  if (!entry.contains("local") || !entry["local"].contains("device") || !entry["local"]["device"].is_string() ||
      entry["local"]["device"].get<std::string>().empty())
    entry["local"] = {{"device", opts_.device}, {"port", opts_.port}};
  const RoundHealth health = HealthOfEntry(entry);
  bool turned = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto key = std::make_pair(entry.value("target", std::string()), entry.value("transport", std::string()));
    auto it = last_health_.find(key);
    turned = HealthTurned(it == last_health_.end() ? std::nullopt : std::optional<RoundHealth>(it->second), health);
    last_health_[key] = health;
    if (pending_.size() >= kMaxPending) pending_.pop_front();
    pending_.push_back(std::move(entry));
  }
  if (turned && opts_.on_turn) opts_.on_turn();
}

void ProbeScheduler::PushFailure(const ProbeTarget& t, const ProberOptions& o, const char* transport,
                                 const std::string& why) {
  ProbeRun f;
  f.transport = transport;
  f.start_wall_ms = f.end_wall_ms = WallMs();
  RecordError(f, o, ConnectFailure(why));
  Push(RunToJson(f, SummarizeRun(f), t.name, t.host, t.control_port));
}

ProberOptions ProbeScheduler::BaseOptions(const ProbeTarget& t) const {
  ProberOptions o;
  o.device = opts_.device;
  o.port = opts_.port;
  o.gid_index = opts_.gid_index;
  o.gid_subnet = opts_.gid_subnet;
  o.probe_class = opts_.probe_class;
  o.rail = opts_.rail;
  o.host = t.host;
  o.control_port = t.control_port;
  o.count = opts_.count;
  o.interval_ms = opts_.spacing_ms;
  o.tuning = opts_.tuning;
  o.control_secret = opts_.control_secret;
  o.control_strict = opts_.control_strict;
  o.max_duration_ms = opts_.interval_ms;  // a round never runs much past its interval
  return o;
}

uint64_t SpreadSpacingMs(uint64_t interval_ms, uint64_t count, size_t targets) {
  if (count == 0 || targets == 0) return 1;
  return std::max<uint64_t>(1, interval_ms / 2 / (2 * count * targets));
}

void ProbeScheduler::RefreshTargets() {
  if (!opts_.refresh_targets) return;
  std::optional<std::vector<ProbeTarget>> fresh = opts_.refresh_targets();
  if (fresh) opts_.targets = std::move(*fresh);
}

void ProbeScheduler::Reconcile() {
  // Stop the workers of targets no longer listed (or listed elsewhere).
  std::vector<std::unique_ptr<Worker>> retired;
  for (auto it = workers_.begin(); it != workers_.end();) {
    bool same = false;
    for (const auto& t : opts_.targets)
      same = same || (t.name == it->first && t.host == it->second->target.host &&
                      t.control_port == it->second->target.control_port);
    if (same) {
      ++it;
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);  // under mu_: the worker's wait cannot miss it
      it->second->stop.store(true);
      last_health_.erase({it->first, "ud"});
      last_health_.erase({it->first, "rc"});
    }
    retired.push_back(std::move(it->second));
    it = workers_.erase(it);
  }
  cv_.notify_all();
  for (auto& w : retired)
    if (w->thread.joinable()) w->thread.join();
  // Start one for each new target, up to the bound. New workers start
  // staggered over half an interval, so a rail's probes do not leave in bursts.
  size_t fresh = 0, fresh_total = 0;
  for (const auto& t : opts_.targets) fresh_total += workers_.count(t.name) ? 0 : 1;
  for (const auto& t : opts_.targets) {
    if (stop_.load()) break;
    if (workers_.count(t.name)) continue;
    if (workers_.size() >= kMaxTargets) {
      PushFailure(t, BaseOptions(t), "ud", "not probed: this rail already probes " + std::to_string(kMaxTargets) +
                                               " targets (the most one rail probes)");
      continue;
    }
    auto w = std::make_unique<Worker>();
    w->target = t;
    w->start_delay_ms = opts_.interval_ms / 2 * fresh++ / std::max<size_t>(1, fresh_total);
    Worker* raw = w.get();
    w->thread = std::thread([this, raw] { WorkerLoop(*raw); });
    workers_[t.name] = std::move(w);
  }
  worker_count_.store(workers_.size());
}

void ProbeScheduler::Loop() {
  auto next = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    RefreshTargets();
    Reconcile();
    next += std::chrono::milliseconds(opts_.interval_ms);
    auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, next, [this] { return stop_.load(); });
  }
}

void ProbeScheduler::WorkerLoop(Worker& w) {
  auto next = std::chrono::steady_clock::now() + std::chrono::milliseconds(w.start_delay_ms);
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, next, [this, &w] { return stop_.load() || w.stop.load(); });
  }
  while (!w.stop.load() && !stop_.load()) {
    Round(w);
    next += std::chrono::milliseconds(opts_.interval_ms);
    auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // an overrun delays this target's next round, never bunches them
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, next, [this, &w] { return stop_.load() || w.stop.load(); });
  }
  // Connections go with the thread that used them (the RC peer frees the responder's QP).
  w.rc.reset();
  w.ud.reset();
}

void ProbeScheduler::Round(Worker& w) {
  const ProbeTarget& t = w.target;
  if (opts_.probe_round) {
    for (auto& e : opts_.probe_round(t, w.stop)) Push(std::move(e));
    return;
  }
  ProberOptions o = BaseOptions(t);
  o.stop = &w.stop;
  auto dev = device_->Acquire();
  if (!dev.ok()) {
    PushFailure(t, o, "ud", dev.status().message());
    PushFailure(t, o, "rc", dev.status().message());
    return;
  }
  // Resources built on a device that has since been reopened go with it.
  if (w.ud && w.ud->device() != *dev) w.ud.reset();
  if (w.rc && w.rc->device() != *dev) w.rc.reset();
  ProbeUd(w, o, *dev);
  if (w.stop.load()) return;
  ProbeRc(w, o, *dev);
}

void ProbeScheduler::ProbeUd(Worker& w, const ProberOptions& o, const std::shared_ptr<RailDevice>& dev) {
  const ProbeTarget& t = w.target;
  // An async failure of its QP or CQ: the session is built again now.
  if (w.ud) {
    if (auto f = dev->TakeFailure(w.ud->qpn(), w.ud->cq(), w.ud->born_seq())) {
      std::fprintf(stderr, "ud prober %s/%d QPN %u (target %s): async event %s: its session is built again\n",
                   dev->local.device.c_str(), dev->local.port, w.ud->qpn(), t.name.c_str(), f->type.c_str());
      w.ud.reset();
    }
  }
  if (!w.ud) {
    auto opened = UdSession::Open(dev);
    if (!opened.ok()) {
      PushFailure(t, o, "ud", opened.status().message());
      return;
    }
    w.ud = std::move(opened).value();
    w.refresh_ud = true;
  }
  if (w.refresh_ud || !w.ud->resolved()) {
    Status r = w.ud->Resolve(o);
    // A target that does not answer ud_info but was known before is probed at
    // its last endpoint: its silence shows as loss, which is what it is.
    if (!r.ok() && !w.ud->resolved()) {
      PushFailure(t, o, "ud", r.message());
      return;
    }
    w.refresh_ud = false;
  }
  if (w.stop.load()) return;
  auto run = w.ud->Run(o);
  if (run.ok()) {
    Push(RunToJson(*run, SummarizeRun(*run), t.name, t.host, t.control_port));
    uint64_t received = 0;
    for (const auto& s : run->samples) received += s.received ? 1 : 0;
    w.refresh_ud = !run->samples.empty() && received == 0;
  } else {
    PushFailure(t, o, "ud", run.status().message());
  }
  // A failed session is this target's alone: it is built again at the next
  // round, and the rail's device is only described again (reopened when the
  // port itself changed or failed), so the rail's other targets keep theirs.
  if (!run.ok() || w.ud->broken()) {
    device_->Recheck(w.ud->device());
    w.ud.reset();
  }
}

void ProbeScheduler::ProbeRc(Worker& w, const ProberOptions& o, const std::shared_ptr<RailDevice>& dev) {
  const ProbeTarget& t = w.target;
  if (!w.rc) w.rc = RcProber::Open(dev);
  auto run = w.rc->Run(o, /*fail_if_unreachable=*/false);
  if (run.ok()) {
    Push(RunToJson(*run, SummarizeRun(*run), t.name, t.host, t.control_port));
  } else {
    PushFailure(t, o, "rc", run.status().message());
  }
}

}  // namespace rdmascope::probes
