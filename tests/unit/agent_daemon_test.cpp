// AgentDaemon against the fixture sysfs trees and an in-process collector:
// reports on schedule with inventory, counters and probes; READY/WATCHDOG/
// STOPPING notifications; prompt stop; --once delivery and spooling.
#include "agent/daemon/daemon.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdlib.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <thread>

#include "agent/daemon/daemon_inventory.h"
#include "agent/node/inventory.h"
#include "agent_test_util.h"
#include "common/model_json.h"

namespace rdmascope::agent {
namespace {

using testing::FakeCollector;
using testing::LogCapture;
using testing::TempDir;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kFixtures = RDMASCOPE_FIXTURES_DIR;

// Service-manager notifications, recorded.
class Notifications {
 public:
  std::function<Status(const std::string&)> Fn() {
    return [this](const std::string& s) {
      std::lock_guard<std::mutex> lock(mu_);
      states_.push_back(s);
      cv_.notify_all();
      return Status::Ok();
    };
  }
  std::vector<std::string> states() const {
    std::lock_guard<std::mutex> lock(mu_);
    return states_;
  }
  size_t Count(const std::string& prefix) const {
    std::lock_guard<std::mutex> lock(mu_);
    return CountLocked(prefix);
  }
  bool WaitCount(const std::string& prefix, size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return CountLocked(prefix) >= n; });
  }

 private:
  size_t CountLocked(const std::string& prefix) const {
    size_t n = 0;
    for (const auto& s : states_) n += s.rfind(prefix, 0) == 0;
    return n;
  }
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> states_;
};

class DaemonTest : public ::testing::Test {
 protected:
  AgentConfig Config(const std::string& collector_url) {
    AgentConfig c;
    c.collector = collector_url;
    c.sysfs_root = kFixtures + "/sys/mlx5_roce";
    c.node_name = "node-a";
    c.spool_dir = dir_.path() + "/spool";
    c.spool_max_bytes = 1 << 20;
    c.report_interval = 50ms;
    c.inventory_interval = 200ms;
    c.labels = {{"group", "rack1"}};
    return c;
  }
  DaemonHooks Hooks() {
    DaemonHooks h;
    h.collect_probes = [this] {
      int n = ++probe_calls_;
      return std::vector<nlohmann::json>{{{"target", "node-b"}, {"transport", "ud"}, {"call", n}}};
    };
    h.notify = notes_.Fn();
    h.log = log_.Fn();
    h.reporter.connect_timeout = 2s;
    h.reporter.io_timeout = 2s;
    return h;
  }
  std::unique_ptr<AgentDaemon> Make(const AgentConfig& c, DaemonHooks h) {
    auto d = AgentDaemon::Create(c, std::move(h));
    EXPECT_TRUE(d.ok()) << d.status().message();
    return d.ok() ? std::move(d).value() : nullptr;
  }

  TempDir dir_;
  LogCapture log_;
  Notifications notes_;
  std::atomic<int> probe_calls_{0};
};

// Runs the daemon on a thread; stops and joins it on destruction.
class Running {
 public:
  explicit Running(AgentDaemon* d) : d_(d), t_([this] { status_ = d_->Run(); }) {}
  ~Running() { StopAndJoin(); }
  std::chrono::milliseconds StopAndJoin() {
    auto start = Clock::now();
    d_->Stop();
    if (t_.joinable()) t_.join();
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  }
  const Status& status() const { return status_; }

 private:
  AgentDaemon* d_;
  Status status_;
  std::thread t_;
};

TEST_F(DaemonTest, TheRailsLabelFollowsTheRailsOfEachReport) {
  FakeCollector collector;
  DaemonHooks h = Hooks();
  // The rail list grows while the daemon runs (a device that appeared late).
  auto rails = std::make_shared<std::atomic<int>>(2);
  h.rail_names = [rails] {
    std::vector<std::string> n = {"0", "1"};
    if (rails->load() == 3) n.push_back("2");
    return n;
  };
  auto d = Make(Config(collector.url()), std::move(h));
  ASSERT_TRUE(d);
  {
    Running run(d.get());
    ASSERT_TRUE(collector.WaitAccepted(1, 10s)) << log_.All();
    rails->store(3);
    const size_t seen = collector.bodies().size();
    ASSERT_TRUE(collector.WaitAccepted(seen + 2, 10s)) << log_.All();
  }
  std::vector<nlohmann::json> bodies = collector.bodies();
  ASSERT_GE(bodies.size(), 3u);
  EXPECT_EQ(bodies.front()["labels"]["rails"], "0,1");
  EXPECT_EQ(bodies.back()["labels"]["rails"], "0,1,2");
  EXPECT_EQ(bodies.back()["labels"]["group"], "rack1");  // the configured labels stay
}

TEST_F(DaemonTest, ResponderEventsGoIntoOneReportAndThenNoMore) {
  FakeCollector collector;
  DaemonHooks h = Hooks();
  auto calls = std::make_shared<std::atomic<int>>(0);
  h.responder_events = [calls] {
    if (calls->fetch_add(1) > 0) return nlohmann::json::array();
    return nlohmann::json::array({{{"device", "rxe0"}, {"port", 1}, {"qpn", 17}, {"status", "LOC_PROT_ERR"},
                                   {"detail", "d"}, {"recovered", true}, {"at_ms", 1}}});
  };
  auto d = Make(Config(collector.url()), std::move(h));
  ASSERT_TRUE(d);
  {
    Running run(d.get());
    ASSERT_TRUE(collector.WaitAccepted(2, 10s)) << log_.All();
  }
  std::vector<nlohmann::json> bodies = collector.bodies();
  ASSERT_GE(bodies.size(), 2u);
  ASSERT_TRUE(bodies[0].contains("responder_events"));
  EXPECT_EQ(bodies[0]["responder_events"].size(), 1u);
  EXPECT_EQ(bodies[0]["responder_events"][0]["qpn"], 17);
  EXPECT_FALSE(bodies[1].contains("responder_events")) << "an empty list is left out";
}

TEST_F(DaemonTest, ReportsEveryIntervalWithInventoryCountersAndProbes) {
  FakeCollector collector;
  auto d = Make(Config(collector.url()), Hooks());
  ASSERT_TRUE(d);
  {
    Running run(d.get());
    ASSERT_TRUE(collector.WaitAccepted(3, 10s)) << log_.All();
    run.StopAndJoin();
    EXPECT_TRUE(run.status().ok()) << run.status().message();
  }
  std::vector<nlohmann::json> bodies = collector.bodies();
  ASSERT_GE(bodies.size(), 3u);
  std::set<std::string> ids;
  int last_call = 0;
  for (const auto& r : bodies) {
    EXPECT_EQ(r["schema_version"], 1);
    EXPECT_EQ(r["node"], "node-a");
    // The configured labels plus where peers reach this agent's control port.
    EXPECT_EQ(r["labels"], nlohmann::json({{"group", "rack1"}, {"control_port", "18610"}}));
    EXPECT_DOUBLE_EQ(r["interval_s"].get<double>(), 0.05);
    EXPECT_TRUE(ids.insert(r["report_id"].get<std::string>()).second) << r["report_id"];
    EXPECT_TRUE(IsValidReportId(r["report_id"].get<std::string>()));
    ASSERT_EQ(r["probes"].size(), 1u);
    int call = r["probes"][0]["call"].get<int>();
    EXPECT_GT(call, last_call);  // each report carries the probes collected for it
    last_call = call;
    ASSERT_FALSE(r["inventory"]["devices"].empty());
    const auto& port = r["inventory"]["devices"][0]["ports"][0];
    EXPECT_TRUE(port.contains("state"));
    EXPECT_FALSE(port["counters"].empty());
  }
  // READY first, STOPPING last.
  std::vector<std::string> states = notes_.states();
  ASSERT_GE(states.size(), 2u);
  EXPECT_EQ(states.front().rfind("READY=1", 0), 0u) << states.front();
  EXPECT_EQ(states.back(), "STOPPING=1");
  // The last report (probes since the previous one) waits in the spool.
  EXPECT_EQ(d->spool_count(), 1u);
  EXPECT_TRUE(log_.Contains("written to the spool")) << log_.All();
}

// The sequence number at the end of a report id.
int Seq(const std::string& id) { return std::stoi(id.substr(id.rfind('-') + 1)); }

TEST_F(DaemonTest, CollectorAwayThenBackEveryReportArrivesOnce) {
  testing::RefusingPort away;
  ASSERT_GT(away.port(), 0);
  auto d = Make(Config(away.url()), Hooks());
  ASSERT_TRUE(d);
  std::vector<std::string> ids;
  {
    Running run(d.get());
    ASSERT_TRUE(log_.WaitFor("cannot deliver", 10s)) << log_.All();
    FakeCollector collector(away.port());
    ASSERT_EQ(collector.port(), away.port());
    ASSERT_TRUE(collector.WaitAccepted(1, 10s)) << log_.All();
    // Wait for the spooled reports and two fresh ones after them.
    ASSERT_TRUE(collector.WaitUntil([&](const std::vector<std::string>& accepted) { return accepted.size() >= 4; },
                                    10s))
        << log_.All();
    run.StopAndJoin();
    ids = collector.accepted();
  }
  // Backlog first, oldest first, then the fresh ones: every report in
  // generation order, none lost, none twice.
  std::vector<int> seqs;
  for (const auto& id : ids) seqs.push_back(Seq(id));
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], int(i) + 1) << "report " << ids[i];
}

// A disk with room for two spooled reports (Spool::WriteFileFn).
Spool::WriteFileFn TwoReportDisk(const std::string& spool_dir) {
  return [spool_dir](const std::string& path, const std::string& body) {
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(spool_dir))
      files += SpoolFileSeq(e.path().filename().string()).has_value();
    if (files >= 2) return ENOSPC;
    std::ofstream(path) << body;
    return 0;
  };
}

// The index of the first accepted report whose first report_losses episode
// satisfies `pred`, once `more` reports were accepted after it (10 s
// deadline; -1 when it did not happen). Polls bodies(): WaitUntil's predicate
// runs under the collector's lock.
int FirstLossReportThenMore(FakeCollector& collector, const std::function<bool(const nlohmann::json&)>& pred,
                            size_t more) {
  auto first = [&]() -> int {
    auto bodies = collector.bodies();
    for (size_t i = 0; i < bodies.size(); ++i) {
      const auto& l = bodies[i].value("report_losses", nlohmann::json::array());
      if (!l.empty() && pred(l[0])) return int(i);
    }
    return -1;
  };
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  for (;;) {
    const int i = first();
    if (i >= 0 && collector.accepted().size() >= size_t(i) + 1 + more) return i;
    if (Clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST_F(DaemonTest, ReportsLostToAFullDiskAreToldUntilTheCollectorHasTheEpisodeEnded) {
  testing::RefusingPort away;
  ASSERT_GT(away.port(), 0);
  DaemonHooks h = Hooks();
  h.spool_write_file = TwoReportDisk(dir_.path() + "/spool");
  auto d = Make(Config(away.url()), std::move(h));
  ASSERT_TRUE(d);
  Running run(d.get());
  ASSERT_TRUE(log_.WaitFor("the file system is full", 10s)) << log_.All();
  FakeCollector collector(away.port());
  ASSERT_EQ(collector.port(), away.port());
  // The episode goes out until a delivered report carried it ended; the
  // reports after that one carry nothing.
  const int e = FirstLossReportThenMore(collector, [](const nlohmann::json& l) { return l["ended"].get<bool>(); }, 2);
  ASSERT_GE(e, 0) << log_.All();
  run.StopAndJoin();
  const auto bodies = collector.bodies();
  const nlohmann::json episode = bodies[e]["report_losses"][0];
  EXPECT_EQ(episode["reason"], "disk_full");
  EXPECT_GE(episode["count"].get<int>(), 1);
  EXPECT_LE(episode["first_ms"].get<int64_t>(), episode["last_ms"].get<int64_t>());
  // Reports delivered before it (replayed, or fresh while the losses went
  // on) carried the same episode not ended, with no larger count.
  bool seen_open = false;
  for (int i = 0; i < e; ++i) {
    const auto& l = bodies[i].value("report_losses", nlohmann::json::array());
    if (l.empty()) continue;
    EXPECT_EQ(l[0]["id"], episode["id"]);
    EXPECT_LE(l[0]["count"].get<int>(), episode["count"].get<int>());
    seen_open = seen_open || !l[0]["ended"].get<bool>();
  }
  EXPECT_TRUE(seen_open);
  for (size_t i = size_t(e) + 2; i < bodies.size(); ++i)
    EXPECT_FALSE(bodies[i].contains("report_losses")) << "report " << i << " of " << bodies.size();
  EXPECT_TRUE(d->report_losses().episodes().empty());
}

// The episodes outlive the process that noted them: a stopped agent's
// losses are told by the next run, which then forgets them on disk too.
TEST_F(DaemonTest, ReportLossesOutliveARestart) {
  testing::RefusingPort away;
  ASSERT_GT(away.port(), 0);
  const std::string spool_dir = dir_.path() + "/spool";
  DaemonHooks h = Hooks();
  h.spool_write_file = TwoReportDisk(spool_dir);
  {
    auto d = Make(Config(away.url()), std::move(h));
    ASSERT_TRUE(d);
    Running run(d.get());
    ASSERT_TRUE(log_.WaitFor("the file system is full", 10s)) << log_.All();
  }
  auto kept = [&] {
    std::ifstream in(spool_dir + "/lost-reports.json");
    return nlohmann::json::parse(in, nullptr, false);
  };
  ASSERT_TRUE(kept().is_object()) << log_.All();
  ASSERT_FALSE(kept()["report_losses"].empty());
  EXPECT_TRUE(kept()["report_losses"][0]["ended"].get<bool>());  // the stop ended it
  const uint64_t id = kept()["report_losses"][0]["id"].get<uint64_t>();

  FakeCollector collector(away.port());
  ASSERT_EQ(collector.port(), away.port());
  auto d = Make(Config(away.url()), Hooks());
  ASSERT_TRUE(d);
  Running run(d.get());
  ASSERT_GE(FirstLossReportThenMore(
                collector, [id](const nlohmann::json& l) { return l["id"] == id && l["ended"].get<bool>(); }, 2),
            0)
      << log_.All();
  run.StopAndJoin();
  EXPECT_TRUE(d->report_losses().episodes().empty());
  EXPECT_TRUE(kept()["report_losses"].empty()) << kept().dump();
}

TEST_F(DaemonTest, StopWakesTheLoopPromptly) {
  FakeCollector collector;
  AgentConfig c = Config(collector.url());
  c.report_interval = 1h;
  c.inventory_interval = 1h;
  auto d = Make(c, Hooks());
  ASSERT_TRUE(d);
  Running run(d.get());
  ASSERT_TRUE(collector.WaitAccepted(1, 10s));  // the first report goes out at once
  EXPECT_LT(run.StopAndJoin(), 2s);
  EXPECT_EQ(collector.accepted().size(), 1u);
}

// Probe results that changed go out early, but never more than one report per
// quarter interval however often they change. The quarter is counted from when
// the previous report was acknowledged, which on a loaded machine (a spool
// fsync, a descheduled thread) can be hundreds of ms after it arrived, so the
// bounds leave a second of slack and still tell an early report from the
// schedule's.
TEST_F(DaemonTest, ReportSoonSendsEarlyAndSpacesTheExtraReports) {
  FakeCollector collector;
  AgentConfig c = Config(collector.url());
  c.report_interval = 6s;  // early reports at most every 1.5 s; the schedule's second report at 6 s
  c.inventory_interval = 1h;
  auto d = Make(c, Hooks());
  ASSERT_TRUE(d);
  Running run(d.get());
  ASSERT_TRUE(collector.WaitAccepted(1, 10s));  // the first report at once
  // Times are the reports' arrivals at the collector, not when this thread
  // noticed them (it may be descheduled on a loaded machine).
  const auto first = collector.accepted_at()[0];
  // Past the quarter interval: the early report leaves at once.
  std::this_thread::sleep_until(first + 2500ms);
  const auto asked = Clock::now();
  d->ReportSoon();
  ASSERT_TRUE(collector.WaitAccepted(2, 10s));
  const auto second = collector.accepted_at()[1];
  EXPECT_LT(second - asked, 1500ms) << "the early report waited (the schedule's is 3.5 s away)";
  // Three asks at once: one report, a quarter interval after the last one,
  // well before the schedule's next (at first + 6 s).
  d->ReportSoon();
  d->ReportSoon();
  d->ReportSoon();
  ASSERT_TRUE(collector.WaitAccepted(3, 10s));
  const auto third = collector.accepted_at()[2];
  EXPECT_GE(third - second, 1500ms) << "an early report came inside the quarter interval";
  EXPECT_LT(third - first, 5500ms) << "the asks were not served before the schedule's report";
  ASSERT_TRUE(collector.WaitAccepted(4, 10s));  // the schedule goes on: no fourth early report
  EXPECT_GE(collector.accepted_at()[3] - first, 5500ms);
}

TEST_F(DaemonTest, StopBeforeRunReturnsAtOnce) {
  FakeCollector collector;
  auto d = Make(Config(collector.url()), Hooks());
  ASSERT_TRUE(d);
  d->Stop();
  EXPECT_TRUE(d->Run().ok());
  EXPECT_TRUE(collector.seen().empty());
  EXPECT_EQ(d->spool_count(), 1u);
}

TEST_F(DaemonTest, WatchdogPingsAtHalfTheInterval) {
  const char* old = std::getenv("WATCHDOG_USEC");
  std::string saved = old ? old : "";
  setenv("WATCHDOG_USEC", "40000", 1);  // 40 ms: ping every 20 ms
  FakeCollector collector;
  AgentConfig c = Config(collector.url());
  c.report_interval = 1h;
  auto d = Make(c, Hooks());
  ASSERT_TRUE(d);
  {
    Running run(d.get());
    EXPECT_TRUE(notes_.WaitCount("WATCHDOG=1", 5, 10s));
  }
  if (old) {
    setenv("WATCHDOG_USEC", saved.c_str(), 1);
  } else {
    unsetenv("WATCHDOG_USEC");
  }
  EXPECT_EQ(collector.accepted().size(), 1u);  // pings do not send reports
}

TEST_F(DaemonTest, OnceDeliversOrSpools) {
  testing::RefusingPort away;
  ASSERT_GT(away.port(), 0);
  const int port = away.port();
  auto d = Make(Config(away.url()), Hooks());
  ASSERT_TRUE(d);
  Status s = d->RunOnce();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not delivered"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("spooled"), std::string::npos) << s.message();
  EXPECT_EQ(d->spool_count(), 1u);

  FakeCollector collector(port);
  ASSERT_EQ(collector.port(), port);
  s = d->RunOnce();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(collector.accepted().size(), 2u);  // this one, then the spooled one
  EXPECT_EQ(d->spool_count(), 0u);
  EXPECT_TRUE(notes_.states().empty());  // --once is not a service
}

TEST_F(DaemonTest, OnceRejectedIsAnError) {
  FakeCollector collector;
  collector.Respond(422, R"({"error":"node is not valid"})");
  auto d = Make(Config(collector.url()), Hooks());
  ASSERT_TRUE(d);
  Status s = d->RunOnce();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rejected by the collector (HTTP 422): node is not valid"), std::string::npos)
      << s.message();
  EXPECT_EQ(d->spool_count(), 0u);
}

TEST_F(DaemonTest, ThrowingProbeHookBecomesAWarning) {
  FakeCollector collector;
  DaemonHooks h = Hooks();
  h.collect_probes = []() -> std::vector<nlohmann::json> { throw std::runtime_error("scheduler gone"); };
  auto d = Make(Config(collector.url()), std::move(h));
  ASSERT_TRUE(d);
  {
    Running run(d.get());
    ASSERT_TRUE(collector.WaitAccepted(2, 10s)) << log_.All();
  }
  nlohmann::json r = collector.bodies().front();
  EXPECT_TRUE(r["probes"].empty());
  bool warned = false;
  for (const auto& w : r["inventory"]["warnings"]) warned |= w.get<std::string>().find("scheduler gone") != std::string::npos;
  EXPECT_TRUE(warned) << r["inventory"]["warnings"];
}

TEST_F(DaemonTest, CreateNamesWhatIsMissing) {
  AgentConfig c = Config("");
  auto d = AgentDaemon::Create(c, Hooks());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("no collector configured"), std::string::npos);

  c = Config("http://127.0.0.1:1");
  c.token_file = dir_.path() + "/no-token";
  d = AgentDaemon::Create(c, Hooks());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find(c.token_file), std::string::npos) << d.status().message();
}

// An agent scoped with --device reports that device alone, even when the node
// (here a tree holding an mlx5 and an rxe device) has others.
TEST_F(DaemonTest, OnlyDeviceScopesTheReport) {
  namespace fs = std::filesystem;
  const fs::path root = dir_.path() + "/sys";
  for (const char* fixture : {"mlx5_roce", "rxe"})
    fs::copy(kFixtures + "/sys/" + fixture, root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  FakeCollector collector;
  AgentConfig c = Config(collector.url());
  c.sysfs_root = root.string();
  auto names = [&] {
    std::vector<std::string> v;
    const nlohmann::json last = collector.bodies().back();
    for (const auto& dev : last["inventory"]["devices"]) v.push_back(dev["name"]);
    return v;
  };
  auto all = Make(c, Hooks());
  ASSERT_TRUE(all);
  ASSERT_TRUE(all->RunOnce().ok());
  EXPECT_EQ(names(), (std::vector<std::string>{"mlx5_0", "rxe0"}));

  DaemonHooks h = Hooks();
  h.only_device = "rxe0";
  auto one = Make(c, std::move(h));
  ASSERT_TRUE(one);
  ASSERT_TRUE(one->RunOnce().ok());
  EXPECT_EQ(names(), (std::vector<std::string>{"rxe0"}));

  h = Hooks();
  h.only_device = "mlx5_9";
  auto missing = Make(c, std::move(h));
  ASSERT_TRUE(missing);
  ASSERT_TRUE(missing->RunOnce().ok());
  EXPECT_TRUE(names().empty());
  EXPECT_NE(collector.bodies().back()["inventory"]["warnings"].dump().find("mlx5_9 (--device) not found"),
            std::string::npos);
}

TEST(DaemonInventory, FreshCountersMatchAFullReadWithCounters) {
  for (const std::string fixture : {"mlx5_roce", "mlx5_ib", "mlx5_ib_errors", "mlx4_nopma", "rxe"}) {
    SysfsReader fs(kFixtures + "/sys/" + fixture);
    InventoryOptions o;
    o.read_counters = true;
    Inventory want = ReadInventory(fs, o);
    Inventory base = ReadFullInventory(fs, nullptr);
    Inventory got = WithFreshCounters(fs, base);
    EXPECT_EQ(InventoryToJson(got), InventoryToJson(want)) << fixture;
    EXPECT_EQ(InventoryCountersToJson(got), InventoryCountersToJson(want)) << fixture;
    // Reading again does not pile up counters or warnings.
    Inventory again = WithFreshCounters(fs, base);
    EXPECT_EQ(InventoryCountersToJson(again), InventoryCountersToJson(want)) << fixture;
  }
}

// A device re-created between two reports (rdma_rxe deleted and added, a
// driver reloaded) is a new instance at the next report, not an inventory
// interval later: its counters restarting are then a reset, not a wrap.
TEST(DaemonInventory, FreshCountersCarryTheInstanceTheyWereReadUnder) {
  TempDir dir;
  const std::string root = dir.path();
  const std::string real = root + "/devices/virtual/infiniband/rxe0";
  auto make_device = [&](uint64_t packets) {
    std::filesystem::create_directories(real + "/ports/1/counters");
    std::ofstream(real + "/node_guid") << "0250:56ff:fe01:0203\n";
    std::ofstream(real + "/ports/1/counters/port_xmit_packets") << packets << "\n";
  };
  make_device(3000000000ull);
  std::filesystem::create_directories(root + "/class/infiniband");
  std::filesystem::create_symlink("../../devices/virtual/infiniband/rxe0", root + "/class/infiniband/rxe0");
  SysfsReader fs(root);
  const Inventory base = ReadFullInventory(fs, nullptr);
  ASSERT_EQ(base.devices.size(), 1u);
  ASSERT_TRUE(base.devices[0].instance);

  Inventory first = WithFreshCounters(fs, base);
  EXPECT_EQ(first.devices[0].instance, base.devices[0].instance);
  EXPECT_EQ(first.devices[0].ports[0].counters.at("port_xmit_packets"), 3000000000ull);

  // Deleted and added again (the old directory kept aside, so its inode cannot come back).
  std::filesystem::rename(real, root + "/devices/gone");
  make_device(1000);
  Inventory after = WithFreshCounters(fs, base);  // the full inventory is not read again
  ASSERT_TRUE(after.devices[0].instance);
  EXPECT_NE(after.devices[0].instance, base.devices[0].instance);
  EXPECT_EQ(after.devices[0].ports[0].counters.at("port_xmit_packets"), 1000u);
  EXPECT_TRUE(after.warnings.empty()) << after.warnings[0];

  // Gone: the instance is unknown, not the old one.
  std::filesystem::remove(root + "/class/infiniband/rxe0");
  EXPECT_FALSE(WithFreshCounters(fs, base).devices[0].instance);
}

}  // namespace
}  // namespace rdmascope::agent
