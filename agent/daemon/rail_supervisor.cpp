#include "agent/daemon/rail_supervisor.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "agent/daemon/rail_names_file.h"
#include "common/text.h"

namespace rdmascope::agent {
namespace {

namespace fs = std::filesystem;

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "4: ACTIVE" -> "ACTIVE"; "" when unreadable.
std::string ReadStateName(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  size_t colon = line.find(':');
  std::string name = colon == std::string::npos ? line : line.substr(colon + 1);
  return std::string(Trim(name, kBlanksAndLineEnds));
}

// Devices with a uverbs node (class/infiniband_verbs/*/ibdev); nullopt when
// that class is not there (fixture trees). A device being removed loses its
// uverbs node first and the removal then waits for every open context: it
// must be released at once.
std::optional<std::set<std::string>> VerbsDevices(const std::string& root) {
  std::error_code ec;
  const fs::path cls = fs::path(root) / "class" / "infiniband_verbs";
  if (!fs::is_directory(cls, ec)) return std::nullopt;
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(cls, ec)) {
    std::ifstream in(e.path() / "ibdev");
    std::string name;
    if (in && std::getline(in, name) && !name.empty()) out.insert(name);
  }
  return out;
}

std::string PortText(const PortRef& p) { return p.device + "/" + std::to_string(p.port); }

// The port's non-zero GIDs (the first 16 entries): RoCE GIDs follow the
// netdev's addresses and come back a little after the port is ACTIVE, so the
// responder is rebuilt when they change.
std::string GidFingerprint(const fs::path& cls, const PortRef& p) {
  std::string out;
  for (int i = 0; i < 16; ++i) {
    std::ifstream in(cls / p.device / "ports" / std::to_string(p.port) / "gids" / std::to_string(i));
    std::string g;
    if (!in || !std::getline(in, g)) break;
    if (g.find_first_not_of("0:") != std::string::npos) out += g + ",";
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<RailSupervisor>> RailSupervisor::Start(RailSupervisorOptions opts) {
  opts.log = OrStderr(std::move(opts.log));
  Status v = ValidateRails(opts.rails);
  if (!v.ok()) return v;
  std::unique_ptr<RailSupervisor> s(new RailSupervisor(std::move(opts)));
  if (!s->opts_.names_file.empty()) {
    auto names = LoadRailNames(s->opts_.names_file);
    if (names.ok()) {
      s->remembered_ = std::move(names).value();
    } else {
      s->opts_.log(names.status().message() + "; naming the rails afresh (the file is rewritten)");
    }
  }
  auto responder = probes::Responder::StartIdle(s->opts_.responder);
  if (!responder.ok()) return responder.status();
  s->responder_ = std::move(responder).value();
  s->Reconcile(/*first=*/true);  // the first one before returning: rails known, responders up
  s->thread_ = std::thread([raw = s.get()] { raw->Loop(); });
  s->fetch_thread_ = std::thread([raw = s.get()] { raw->FetchLoop(); });
  s->retire_thread_ = std::thread([raw = s.get()] { raw->RetireLoop(); });
  return s;
}

RailSupervisor::~RailSupervisor() { Stop(); }

void RailSupervisor::RememberNames(const std::vector<RailSpec>& specs) {
  std::vector<RailSpec> merged = MergeRailNames(specs, remembered_);
  auto same = [](const std::vector<RailSpec>& a, const std::vector<RailSpec>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].name != b[i].name || !(a[i].where == b[i].where)) return false;
    return true;
  };
  if (same(merged, remembered_) && !names_unsaved_) return;
  remembered_ = std::move(merged);
  names_unsaved_ = !opts_.names_file.empty();
  if (!names_unsaved_) return;
  if (Status s = SaveRailNames(opts_.names_file, remembered_); !s.ok()) {
    opts_.log(s.message() + " (tried again at the next reconcile; until then a restart may name the rails "
              "differently)");
    return;
  }
  names_unsaved_ = false;
}

void RailSupervisor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ && !thread_.joinable() && !responder_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (fetch_thread_.joinable()) fetch_thread_.join();
  if (retire_thread_.joinable()) retire_thread_.join();  // stops what was handed to it first
  std::vector<std::unique_ptr<probes::ProbeScheduler>> probers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& r : rails_) probers.push_back(std::move(r.prober));
  }
  for (auto& p : probers)
    if (p) p->Stop();
  watchers_.clear();
  if (responder_) responder_->Stop();
  responder_.reset();
}

void RailSupervisor::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = true;
  }
  cv_.notify_all();
}

void RailSupervisor::OnEvent(const AsyncEvent& e) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::string line = "async event " + e.type + " on " + e.device;
    if (e.port) line += " port " + std::to_string(e.port);
    event_log_.push_back(line);
    if (e.gone) gone_.insert(e.device);
    wake_ = true;
  }
  cv_.notify_all();
}

void RailSupervisor::Loop() {
  // Every second (or interval, when shorter): a removed device must be let go
  // quickly, and a removal sends no event.
  const auto period = std::chrono::milliseconds(std::min<uint64_t>(opts_.interval_ms, 1000));
  auto next = std::chrono::steady_clock::now() + period;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(lock, next, [this] { return stop_ || wake_; });
      if (stop_) return;
      wake_ = false;
      if (std::chrono::steady_clock::now() >= next) next = std::chrono::steady_clock::now() + period;
    }
    try {
      Reconcile();
    } catch (const std::exception& e) {
      opts_.log(std::string("rails: reconcile failed: ") + e.what() + "; retrying next interval");
    }
  }
}

std::map<PortRef, std::string> RailSupervisor::DiscoverPorts() const {
  std::map<PortRef, std::string> out;
  std::error_code ec;
  const fs::path cls = fs::path(opts_.sysfs_root) / "class" / "infiniband";
  for (const auto& dev : fs::directory_iterator(cls, ec)) {
    const std::string name = dev.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code pec;
    for (const auto& port : fs::directory_iterator(dev.path() / "ports", pec)) {
      const std::string pn = port.path().filename().string();
      if (pn.empty() || pn.find_first_not_of("0123456789") != std::string::npos) continue;
      out[PortRef{name, std::stoi(pn)}] = ReadStateName(port.path() / "state");
    }
  }
  return out;
}

void RailSupervisor::StopProber(RailState& r) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!r.prober) return;
    retiring_.push_back(std::move(r.prober));
  }
  cv_.notify_all();
}

void RailSupervisor::RetireLoop() {
  for (;;) {
    std::vector<std::unique_ptr<probes::ProbeScheduler>> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !retiring_.empty(); });
      if (retiring_.empty()) return;  // stopping, and nothing left to stop
      batch.swap(retiring_);
    }
    for (auto& p : batch) {
      p->Stop();
      std::vector<nlohmann::json> left = p->Collect();
      p.reset();  // its contexts are closed now (a device removal waits for that)
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& e : left) pending_.push_back(std::move(e));
    }
  }
}

void RailSupervisor::FetchTargets(const std::vector<std::string>& rails) {
  for (const std::string& name : rails) {
    auto t = opts_.targets(name);
    if (!t) continue;
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& rs : rails_)
      if (rs.spec.name == name) rs.targets = *t;
  }
}

void RailSupervisor::FetchLoop() {
  for (;;) {
    std::vector<std::string> rails;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || fetch_due_; });
      if (stop_) return;
      fetch_due_ = false;
      rails.swap(fetch_rails_);
    }
    FetchTargets(rails);
  }
}

void RailSupervisor::Reconcile(bool first) {
  std::set<std::string> gone;
  std::vector<std::string> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    gone.swap(gone_);
    events.swap(event_log_);
  }
  for (const auto& line : events) opts_.log(line);
  bool changed = !events.empty();
  // Devices that went away: release everything on them now.
  for (const auto& dev : gone) {
    ++epoch_[dev];
    watchers_.erase(dev);
    opts_.log("device " + dev + " gone or fatal: releasing it, looking for it again every interval");
  }
  std::map<PortRef, std::string> ports = DiscoverPorts();
  const auto verbs = VerbsDevices(opts_.sysfs_root);
  std::set<std::string> present;
  for (const auto& [p, state] : ports) {
    known_.insert(p);
    if (!verbs || verbs->count(p.device)) present.insert(p.device);  // else: being removed
  }
  // A watcher per present device; a device that cannot be opened counts as missing.
  for (auto it = watchers_.begin(); it != watchers_.end();) {
    if (it->second->done() || !present.count(it->first)) {
      // A device that vanished without an event (or whose watcher ended) is a new one when it is back.
      ++epoch_[it->first];
      it = watchers_.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<std::string> notes;
  const std::vector<RailSpec> specs = ComputeRails(std::vector<PortRef>(known_.begin(), known_.end()),
                                                   opts_.devices, opts_.rails,
                                                   MergeRailNames(specs_, remembered_), &notes);
  for (const auto& line : notes) opts_.log(line);
  specs_ = specs;
  RememberNames(specs);
  std::set<std::string> rail_devices;
  for (const RailSpec& r : specs) rail_devices.insert(r.where.device);
  std::set<std::string> usable;
  for (const auto& dev : present) {
    // Only the devices this agent uses: an open context on another would hold up its removal.
    if (!rail_devices.count(dev)) continue;
    if (gone.count(dev)) continue;  // still being removed: try again next interval
    if (!watchers_.count(dev)) {
      auto w = AsyncEventWatcher::Start(dev, [this](const AsyncEvent& e) { OnEvent(e); });
      if (!w.ok()) continue;
      watchers_[dev] = std::move(w).value();
    }
    usable.insert(dev);
  }

  // Rail table: keep the per-rail state of rails that still exist.
  std::vector<RailState> next;
  std::vector<std::unique_ptr<probes::ProbeScheduler>> orphans;
  std::vector<std::string> changes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const RailSpec& s : specs) {
      RailState r;
      r.spec = s;
      for (auto& old : rails_)
        if (old.spec.name == s.name && old.spec.where == s.where) r = std::move(old);
      std::string state = "missing";
      if (usable.count(s.where.device)) {
        auto it = ports.find(s.where);
        state = it == ports.end() ? "missing" : (it->second.empty() ? "unknown" : it->second);
      }
      if (state != r.state) changes.push_back("rail " + s.name + " (" + PortText(s.where) + "): " + r.state + " -> " + state);
      r.state = state;
      next.push_back(std::move(r));
    }
    for (auto& old : rails_)
      if (old.prober) orphans.push_back(std::move(old.prober));
    rails_ = std::move(next);
  }
  for (const auto& c : changes) opts_.log(c);
  changed = changed || !changes.empty() || !gone.empty();
  // Report first: stopping probers and rebuilding the responder can take a second or two.
  if (changed && opts_.on_change) opts_.on_change(changes.empty() ? "async event" : changes.front());
  if (!orphans.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& o : orphans) retiring_.push_back(std::move(o));
  }
  cv_.notify_all();

  // Probers: one per ACTIVE rail, restarted when its device came back.
  const auto started_at = std::chrono::steady_clock::now();
  const bool fetch_down = started_at - last_down_fetch_ >= std::chrono::milliseconds(opts_.interval_ms);
  if (fetch_down) last_down_fetch_ = started_at;
  std::vector<std::string> down;  // rails whose targets are fetched for their not-run entries
  for (size_t i = 0; i < rails_.size(); ++i) {
    RailState& r = rails_[i];
    const bool active = r.state == "ACTIVE";
    const uint64_t epoch = epoch_[r.spec.where.device];
    if (r.prober && (!active || r.prober_epoch != epoch)) StopProber(r);
    if (!active) {
      if (opts_.targets && fetch_down) down.push_back(r.spec.name);
      continue;
    }
    if (r.prober || !opts_.targets) continue;
    probes::SchedulerOptions so;
    so.device = r.spec.where.device;
    so.port = r.spec.where.port;
    so.rail = r.spec.name;
    probes::ApplyProbePath(opts_.paths.For(r.spec.name), &so);
    so.count = opts_.probe_count;
    so.interval_ms = opts_.interval_ms;
    so.spacing_ms = probes::SpreadSpacingMs(so.interval_ms, so.count, 1);
    so.control_secret = opts_.responder.control_secret;  // one fleet secret: served and presented
    so.control_strict = opts_.responder.control_strict;
    so.on_turn = opts_.on_probe_turn;
    const std::string rail = r.spec.name;
    RailSupervisor* self = this;
    so.refresh_targets = [self, rail]() -> std::optional<std::vector<probes::ProbeTarget>> {
      auto t = self->opts_.targets(rail);
      if (t) {
        std::lock_guard<std::mutex> lock(self->mu_);
        for (auto& rs : self->rails_)
          if (rs.spec.name == rail) rs.targets = *t;
      }
      return t;
    };
    auto started = probes::ProbeScheduler::Start(so);
    if (!started.ok()) {
      opts_.log("rail " + r.spec.name + ": prober not started: " + started.status().message());
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    r.prober = std::move(started).value();
    r.prober_epoch = epoch;
  }
  if (!down.empty()) {
    if (first) {
      FetchTargets(down);
    } else {
      {
        std::lock_guard<std::mutex> lock(mu_);
        fetch_rails_ = std::move(down);
        fetch_due_ = true;
      }
      cv_.notify_all();
    }
  }

  // Responders: exactly the ACTIVE rails (and again whenever a device came back).
  std::vector<probes::ServedPort> served;
  std::string signature;
  for (const RailState& r : rails_) {
    if (r.state != "ACTIVE") continue;
    served.push_back({r.spec.where.device, r.spec.where.port, r.spec.name, epoch_[r.spec.where.device]});
    signature += r.spec.name + "=" + PortText(r.spec.where) + "#" + std::to_string(epoch_[r.spec.where.device]) + "[" +
                 GidFingerprint(fs::path(opts_.sysfs_root) / "class" / "infiniband", r.spec.where) + "];";
  }
  if (signature != served_signature_) {
    for (const auto& problem : responder_->Serve(served)) opts_.log("responder: " + problem);
    served_signature_ = signature;
    std::string list;
    for (const auto& sp : served) list += (list.empty() ? "" : ", ") + sp.rail + "=" + sp.device + "/" + std::to_string(sp.port);
    opts_.log("responder: serving " + std::to_string(served.size()) + " rail(s)" + (list.empty() ? "" : ": " + list));
  }
  // A UD responder that stopped is built again; the responders' events go
  // into the next report, which is sent at once.
  for (const auto& problem : responder_->Heal()) opts_.log("responder: " + problem);
  std::vector<probes::ResponderEvent> responder_events = responder_->TakeEvents();
  if (!responder_events.empty()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& e : responder_events) responder_events_.push_back(std::move(e));
      if (responder_events_.size() > probes::kMaxPendingEvents)
        responder_events_.erase(responder_events_.begin(),
                                responder_events_.end() - std::ptrdiff_t(probes::kMaxPendingEvents));
    }
    if (opts_.on_change) opts_.on_change("responder: " + responder_events.front().detail);
  }
}

nlohmann::json RailSupervisor::TakeResponderEvents() {
  std::vector<probes::ResponderEvent> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    events.swap(responder_events_);
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : events)
    out.push_back({{"device", e.device}, {"port", e.port}, {"qpn", e.qpn}, {"status", e.status},
                   {"detail", e.detail}, {"recovered", e.recovered}, {"at_ms", e.at_ms}});
  return out;
}

std::vector<nlohmann::json> RailSupervisor::Collect() {
  const int64_t now = WallMs();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<nlohmann::json> out = std::move(pending_);
  pending_.clear();
  const int64_t since = last_collect_ms_ ? last_collect_ms_ : now - int64_t(opts_.interval_ms);
  last_collect_ms_ = now;
  for (auto& r : rails_) {
    if (r.prober) {
      for (auto& e : r.prober->Collect()) out.push_back(std::move(e));
      continue;
    }
    if (r.state == "ACTIVE") continue;
    const std::string why = r.state == "missing" ? "local device missing" : "local port " + r.state;
    for (const auto& t : r.targets) {
      for (const char* transport : {"ud", "rc"}) {
        nlohmann::json j;
        j["target"] = t.name;
        j["transport"] = transport;
        j["rail"] = r.spec.name;
        j["local"] = {{"device", r.spec.where.device}, {"port", r.spec.where.port}};
        j["remote"] = {{"host", t.host}, {"control_port", t.control_port}};
        j["interval_start_ms"] = since;
        j["interval_end_ms"] = now;
        j["summary"] = {{"sent", 0}, {"received", 0}, {"lost", 0}, {"loss_ratio", nullptr},
                        {"rtt_us", nullptr}, {"errors_by_status", nlohmann::json::object()}};
        j["errors"] = nlohmann::json::array();
        j["not_run"] = why;
        out.push_back(std::move(j));
      }
    }
  }
  return out;
}

nlohmann::json RailSupervisor::RailsJson() {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : rails_)
    a.push_back({{"name", r.spec.name}, {"device", r.spec.where.device}, {"port", r.spec.where.port},
                 {"state", r.state}});
  return a;
}

std::vector<std::string> RailSupervisor::RailNames() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> n;
  for (const auto& r : rails_) n.push_back(r.spec.name);
  return n;
}

}  // namespace rdmascope::agent
