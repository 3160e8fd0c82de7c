#include "probes/probe_scheduler.h"

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <chrono>
#include <cstdlib>

#include "probes/probe_clock.h"
#include "probes/probe_json.h"
#include "probes/rc_prober.h"

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

Result<std::unique_ptr<ProbeScheduler>> ProbeScheduler::Start(const SchedulerOptions& opts) {
  if (opts.device.empty()) return Status::Error("probing needs a device (--device or --rail)");
  if (opts.count == 0 || opts.interval_ms == 0) return Status::Error("probe count and interval must be > 0");
  Status s = ValidateTuning(opts.tuning);
  if (!s.ok()) return s;
  s = ValidateProbeClass(opts.probe_class);
  if (!s.ok()) return s;
  std::unique_ptr<ProbeScheduler> p(new ProbeScheduler());
  p->opts_ = opts;
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
  rc_.clear();
}

std::vector<nlohmann::json> ProbeScheduler::Collect() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<nlohmann::json> out(pending_.begin(), pending_.end());
  pending_.clear();
  return out;
}

void ProbeScheduler::Push(nlohmann::json entry) {
  if (!opts_.rail.empty()) entry["rail"] = opts_.rail;
  if (!entry.contains("local") || entry["local"]["device"].get<std::string>().empty())
    entry["local"] = {{"device", opts_.device}, {"port", opts_.port}};
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_.size() >= kMaxPending) pending_.pop_front();
  pending_.push_back(std::move(entry));
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
  o.max_duration_ms = opts_.interval_ms;  // a round never runs much past its interval
  o.stop = &stop_;
  return o;
}

uint64_t SpreadSpacingMs(uint64_t interval_ms, uint64_t count, size_t targets) {
  if (count == 0 || targets == 0) return 1;
  return std::max<uint64_t>(1, interval_ms / 2 / (2 * count * targets));
}

void ProbeScheduler::RefreshTargets() {
  if (!opts_.refresh_targets) return;
  std::optional<std::vector<ProbeTarget>> fresh = opts_.refresh_targets();
  if (!fresh) return;
  opts_.targets = std::move(*fresh);
  for (auto it = rc_.begin(); it != rc_.end();) {
    bool listed = false;
    for (const auto& t : opts_.targets) listed = listed || t.name == it->first;
    it = listed ? std::next(it) : rc_.erase(it);
  }
  opts_.spacing_ms = SpreadSpacingMs(opts_.interval_ms, opts_.count, opts_.targets.size());
}

void ProbeScheduler::Round() {
  RefreshTargets();
  for (const auto& t : opts_.targets) {
    if (stop_.load()) return;
    const ProberOptions o = BaseOptions(t);
    auto ud = RunUdProbe(o);
    ProbeRun failed;
    failed.start_wall_ms = failed.end_wall_ms = WallMs();
    if (ud.ok()) {
      Push(RunToJson(*ud, SummarizeRun(*ud), t.name, t.host, t.control_port));
    } else {
      failed.transport = "ud";
      RecordError(failed, o, ConnectFailure(ud.status().message()));
      Push(RunToJson(failed, SummarizeRun(failed), t.name, t.host, t.control_port));
    }
    if (stop_.load()) return;
    auto& rc = rc_[t.name];
    Result<ProbeRun> run = Status::Error("not run");
    if (!rc) {
      auto opened = RcProber::Open(o);
      if (opened.ok()) rc = std::move(opened).value();
      else run = opened.status();
    }
    if (rc) run = rc->Run(o, /*fail_if_unreachable=*/false);
    if (run.ok()) {
      Push(RunToJson(*run, SummarizeRun(*run), t.name, t.host, t.control_port));
    } else {
      ProbeRun f;
      f.transport = "rc";
      f.start_wall_ms = f.end_wall_ms = WallMs();
      RecordError(f, o, ConnectFailure(run.status().message()));
      Push(RunToJson(f, SummarizeRun(f), t.name, t.host, t.control_port));
    }
  }
}

void ProbeScheduler::Loop() {
  auto next = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    Round();
    next += std::chrono::milliseconds(opts_.interval_ms);
    auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // an overrun delays the next round, never bunches them
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, next, [this] { return stop_.load(); });
  }
}

}  // namespace rdmascope::probes
