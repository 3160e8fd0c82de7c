// The agent's prober runs one worker per target: a target that hangs costs
// only its own rounds. Probing is replaced by SchedulerOptions::probe_round
// (a fake round per target), so no RDMA device is needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "probes/probe_scheduler.h"

namespace rdmascope::probes {
namespace {

using Clock = std::chrono::steady_clock;

// Entries per target collected so far, and the fake's bookkeeping.
struct Fake {
  std::mutex mu;
  std::map<std::string, int> rounds;  // rounds started, per target
  std::map<std::string, Clock::time_point> first;  // when each target's first round started
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};
  std::atomic<int> stopped_seen{0};  // hanging rounds that ended because of their stop flag
  std::string hang;                  // this target's rounds block until stopped (or 30 s)
  std::string lossy;                 // this target loses 5 of 10 from round lossy_from (1-based) on
  int lossy_from = 0;

  std::vector<nlohmann::json> Round(const ProbeTarget& t, const std::atomic<bool>& stop) {
    int round = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      round = ++rounds[t.name];
      if (round == 1) first[t.name] = Clock::now();
    }
    int now = ++running;
    for (int m = max_running.load(); now > m && !max_running.compare_exchange_weak(m, now);) {}
    if (t.name == hang) {
      const auto end = Clock::now() + std::chrono::seconds(30);
      while (!stop.load() && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (stop.load()) ++stopped_seen;
    }
    --running;
    const int lost = t.name == lossy && round >= lossy_from ? 5 : 0;
    return {{{"target", t.name},
             {"transport", "ud"},
             {"summary", {{"sent", 10}, {"received", 10 - lost}, {"lost", lost}}}}};
  }
  int RoundsOf(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu);
    return rounds[name];
  }
};

SchedulerOptions FakeOptions(Fake& fake, uint64_t interval_ms, int targets) {
  SchedulerOptions so;
  so.device = "fake0";
  so.rail = "r0";
  so.interval_ms = interval_ms;
  for (int i = 0; i < targets; ++i) so.targets.push_back({"t" + std::to_string(i), "10.0.0." + std::to_string(i + 1), 18610});
  so.probe_round = [&fake](const ProbeTarget& t, const std::atomic<bool>& stop) { return fake.Round(t, stop); };
  return so;
}

// Polls `cond` every 5 ms until it holds or `limit` passes.
template <typename F>
bool WaitFor(F cond, std::chrono::milliseconds limit) {
  const auto end = Clock::now() + limit;
  while (!cond()) {
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(ProbeSchedulerConcurrency, AHangingTargetCostsTheOthersNothing) {
  Fake fake;
  fake.hang = "t2";
  const uint64_t interval_ms = 100;
  auto s = ProbeScheduler::Start(FakeOptions(fake, interval_ms, 5));
  ASSERT_TRUE(s.ok()) << s.status().message();
  const auto t0 = Clock::now();
  // Every live target gets its 6th round by 5 intervals after the start
  // (rounds at 0, 100, ..., 500 ms); a prober that waited for t2 would not
  // get past round 1 for 30 s.
  auto live_have = [&](int n) {
    for (const char* name : {"t0", "t1", "t3", "t4"})
      if (fake.RoundsOf(name) < n) return false;
    return true;
  };
  ASSERT_TRUE(WaitFor([&] { return live_have(6); }, std::chrono::milliseconds(5000)))
      << "t0 " << fake.RoundsOf("t0") << " t1 " << fake.RoundsOf("t1") << " t3 " << fake.RoundsOf("t3") << " t4 "
      << fake.RoundsOf("t4");
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  EXPECT_LT(took, 5 * int64_t(interval_ms) + 1000) << "6 rounds of the live targets took " << took << " ms";
  EXPECT_EQ(fake.RoundsOf("t2"), 1);  // still inside its first round
  EXPECT_GE(fake.max_running.load(), 2);
  {
    // Started together, the 5 workers start staggered over half an interval
    // (0, 10, ..., 40 ms here), not in one burst.
    std::lock_guard<std::mutex> lock(fake.mu);
    auto [lo, hi] = std::minmax_element(fake.first.begin(), fake.first.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
    EXPECT_GE(std::chrono::duration_cast<std::chrono::milliseconds>(hi->second - lo->second).count(), 30);
  }
  auto entries = (*s)->Collect();
  std::map<std::string, int> by_target;
  for (const auto& e : entries) {
    ++by_target[e["target"].get<std::string>()];
    EXPECT_EQ(e["rail"], "r0");
  }
  EXPECT_GE(by_target["t0"], 6);
  EXPECT_EQ(by_target.count("t2"), 0u);
  // Stop() ends the hanging round through its stop flag, promptly.
  const auto s0 = Clock::now();
  (*s)->Stop();
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - s0).count(), 1000);
  EXPECT_EQ(fake.stopped_seen.load(), 1);
}

TEST(ProbeSchedulerConcurrency, RefreshStartsAndStopsWorkers) {
  Fake fake;
  fake.hang = "t1";  // removed while it hangs: its round must be stopped
  SchedulerOptions so = FakeOptions(fake, 50, 2);
  std::atomic<int> calls{0};
  so.refresh_targets = [&calls]() -> std::optional<std::vector<ProbeTarget>> {
    if (++calls < 3) return std::nullopt;  // the first two intervals keep t0, t1
    return std::vector<ProbeTarget>{{"t0", "10.0.0.1", 18610}, {"t9", "10.0.0.9", 18610}};
  };
  auto s = ProbeScheduler::Start(so);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(WaitFor([&] { return fake.RoundsOf("t9") >= 2; }, std::chrono::milliseconds(5000)));
  EXPECT_EQ((*s)->WorkerCount(), 2u);
  EXPECT_EQ(fake.stopped_seen.load(), 1);
  EXPECT_EQ(fake.RoundsOf("t1"), 1);
}

// A target whose rounds turn lossy calls on_turn once, at the first lossy
// round, and not again while it stays so; the other targets never do.
TEST(ProbeSchedulerConcurrency, OnTurnWhenATargetTurnsBadOnlyOnce) {
  Fake fake;
  fake.lossy = "t1";
  fake.lossy_from = 3;
  std::atomic<int> turns{0};
  std::atomic<int> t1_rounds_at_turn{0};
  SchedulerOptions so = FakeOptions(fake, 50, 3);
  so.on_turn = [&] {
    if (++turns == 1) t1_rounds_at_turn = fake.RoundsOf("t1");
  };
  auto s = ProbeScheduler::Start(so);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(WaitFor([&] { return fake.RoundsOf("t1") >= 8 && fake.RoundsOf("t0") >= 8; },
                      std::chrono::milliseconds(10000)));
  (*s)->Stop();
  EXPECT_EQ(turns.load(), 1);
  EXPECT_EQ(t1_rounds_at_turn.load(), 3);
}

TEST(ProbeSchedulerConcurrency, WorkersAreBounded) {
  Fake fake;
  const int n = int(ProbeScheduler::kMaxTargets) + 3;
  auto s = ProbeScheduler::Start(FakeOptions(fake, 60000, n));
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(WaitFor([&] { return (*s)->WorkerCount() == ProbeScheduler::kMaxTargets; },
                      std::chrono::milliseconds(5000)));
  std::vector<nlohmann::json> entries;
  int refused = 0;
  ASSERT_TRUE(WaitFor(
      [&] {
        for (auto& e : (*s)->Collect()) {
          const auto& errs = e["errors"];
          if (errs.is_array() && !errs.empty() && errs[0].dump().find("not probed") != std::string::npos) ++refused;
        }
        return refused == 3;
      },
      std::chrono::milliseconds(5000)))
      << refused;
}

}  // namespace
}  // namespace rdmascope::probes
