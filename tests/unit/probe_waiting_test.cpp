// Probe waiting and timing arithmetic: adaptive spin budgets, selective send
// signalling, responder-time subtraction, device clock conversion, the LRU.
#include <gtest/gtest.h>

#include <string>

#include "probes/adaptive_spin.h"
#include "probes/latency_summary.h"
#include "probes/lru_cache.h"
#include "probes/probe_timing.h"
#include "probes/send_signal.h"
#include "probes/spin_clock.h"
#include "probes/spin_clock_stride.h"
#include "probes/probe_clock.h"

namespace rdmascope::probes {
namespace {

TEST(AdaptiveSpin, ProberSpinsThreeTimesTypicalRttCappedOrNotAtAll) {
  AdaptiveSpin s = ProberSpin(2000000);
  EXPECT_EQ(s.Budget(), 2000000u);  // the first probe calibrates
  s.Observe(400000);
  EXPECT_EQ(s.Budget(), 1200000u);  // 3 x 400 us
  s.Observe(600000);
  EXPECT_EQ(s.Budget(), 3 * 425000u);  // up 1/16: 400 + 25 us
  for (int i = 0; i < 200; ++i) s.Observe(1000000);
  EXPECT_EQ(s.Budget(), 2000000u);  // 3 x ~1 ms is over the cap: the cap, which still covers the RTT
  for (int i = 0; i < 200; ++i) s.Observe(2500000);
  EXPECT_EQ(s.Budget(), 0u);  // the RTT itself is over the cap: sleep at once
  EXPECT_EQ(ProberSpin(0).Budget(), 0u);  // cap 0: never spin
}

TEST(AdaptiveSpin, RareStallsDoNotStopTheSpin) {
  // One probe in ten stalls 20 ms (an emulated machine's hiccup): a mean
  // would sit over the 2 ms cap and turn the spin off for every probe; the
  // typical RTT stays near the common 600 us.
  AdaptiveSpin s = ProberSpin(2000000);
  for (int i = 0; i < 500; ++i) s.Observe(i % 10 == 9 ? 20000000 : 600000);
  EXPECT_GE(s.typical_ns(), 550000u);
  EXPECT_LE(s.typical_ns(), 700000u);
  EXPECT_GE(s.Budget(), 3 * 550000u);  // still spinning: 3 x typical
}

TEST(AdaptiveSpin, TypicalFollowsALastingChange) {
  AdaptiveSpin s(1, 0, 1u << 30, 0, 0);
  s.Observe(800);
  EXPECT_EQ(s.typical_ns(), 800u);
  s.Observe(1600);
  EXPECT_EQ(s.typical_ns(), 850u);  // 800 + 800 / 16
  for (int i = 0; i < 60; ++i) s.Observe(8000);
  EXPECT_GE(s.typical_ns(), 7500u);  // 10x more delay, followed within 60 observations
  for (int i = 0; i < 60; ++i) s.Observe(800);
  EXPECT_LE(s.typical_ns(), 850u);
}

// A responder's first gap may be an idle spell of seconds (an agent probes in
// bursts each interval): it must not keep the window shut for a hundred
// probes of the next bursts.
TEST(AdaptiveSpin, AFirstLongGapIsForgottenWithinAFewBursts) {
  AdaptiveSpin s = ResponderSpin{}.Make();  // 200 us .. 5 ms
  s.Observe(2000000000);                     // 2 s of nothing, then a burst
  EXPECT_EQ(s.typical_ns(), 10000000u);      // counted as twice the cap
  int gaps = 0;
  while (s.Budget() == 200000u && gaps < 100) s.Observe(gaps++ % 10 == 9 ? 2000000000 : 500000);
  EXPECT_LE(gaps, 30) << "bursts of 10 probes 500 us apart, 2 s between bursts";
  EXPECT_EQ(s.Budget(), 2 * s.typical_ns());
}

TEST(AdaptiveSpin, ResponderHotWindowClampsAndSleepsForSparseTraffic) {
  ResponderSpin cfg;  // 200 us .. 5 ms
  AdaptiveSpin s = cfg.Make();
  EXPECT_EQ(s.Budget(), 200000u);
  s.Observe(50000);  // back-to-back probes 50 us apart: 2 x 50 us < floor
  EXPECT_EQ(s.Budget(), 200000u);
  AdaptiveSpin m = cfg.Make();
  m.Observe(1000000);  // 1 ms apart: 2 ms window
  EXPECT_EQ(m.Budget(), 2000000u);
  AdaptiveSpin sparse = cfg.Make();
  sparse.Observe(10000000);  // 10 ms apart: spinning 5 ms would catch nothing
  EXPECT_EQ(sparse.Budget(), 200000u);
  ResponderSpin off{200000, 0};
  EXPECT_EQ(off.Make().Budget(), 0u);
}

TEST(SpinClock, AdvancesWithRealTime) {
  EXPECT_EQ(CyclesToNs(3000, 1000, 500, 0.5), 1500u);  // 2000 cycles at 0.5 ns from t0 = 500
  EXPECT_EQ(CyclesToNs(900, 1000, 500, 0.5), 500u);    // before the calibration point: t0
  // Each spin clock read is bracketed by real-time reads, so a preemption
  // between them widens the bracket instead of failing the test.
  const uint64_t n0a = NowNs(), s0 = SpinClockNs(), n0b = NowNs();
  for (uint64_t s = s0; SpinClockNs() == s;) {}  // it moves
  while (NowNs() - n0b < 20000000) {}            // 20 ms of real time
  const uint64_t n1a = NowNs(), s1 = SpinClockNs(), n1b = NowNs();
  EXPECT_GE(double(s1 - s0), 0.8 * double(n1a - n0b));
  EXPECT_LE(double(s1 - s0), 1.25 * double(n1b - n0a));
}

TEST(SendSignaler, SignalsEveryNthAndRetiresInOrder) {
  SendSignaler s(8, 32);
  int signalled = 0;
  uint64_t last_signalled = 0;
  for (int i = 0; i < 16; ++i) {
    bool sig = false;
    uint64_t k = s.Post(&sig);
    EXPECT_EQ(k, uint64_t(i));
    if (sig) { ++signalled; last_signalled = k; }
  }
  EXPECT_EQ(signalled, 2);
  EXPECT_EQ(last_signalled, 15u);
  EXPECT_EQ(s.Outstanding(), 16u);
  EXPECT_TRUE(s.InFlight(3));
  s.Completed(7);  // retires 0..7
  EXPECT_EQ(s.Outstanding(), 8u);
  EXPECT_FALSE(s.InFlight(3));
  EXPECT_TRUE(s.InFlight(8));
  s.Completed(5);  // an older completion changes nothing
  EXPECT_EQ(s.Outstanding(), 8u);
  s.Completed(99);  // never posted: ignored
  EXPECT_EQ(s.Outstanding(), 8u);
}

TEST(SendSignaler, NeverFillsTheQueueWithoutASignalledSend) {
  SendSignaler s(8, 4);  // depth below N: every send must ask for a completion
  while (s.Room()) {
    bool sig = false;
    s.Post(&sig);
    EXPECT_TRUE(sig);
  }
  EXPECT_EQ(s.Outstanding(), 4u);
}

TEST(ProbeTiming, NetworkIsRttMinusResponderTime) {
  // T2 = 1000, T3 = 1200 (responder poll), T4 = 1260, T5 = 1500 (ns).
  EXPECT_EQ(ResponderDelayNs(1200, 1260), 60u);
  EXPECT_EQ(ResponderDelayNs(1260, 1200), 0u);  // a clock that went back reads 0
  EXPECT_DOUBLE_EQ(NetworkUs(0.5, 0.06), 0.44);
  EXPECT_DOUBLE_EQ(NetworkUs(0.05, 0.06), 0.0);
  ProbeSample rc;
  rc.received = true;
  rc.rtt_us = 500;
  rc.responder_us = 60;
  rc.read_us = 30;
  ProbeSummary sum = Summarize({rc}, {});
  ASSERT_TRUE(sum.network && sum.responder);
  EXPECT_DOUBLE_EQ(sum.network->p50, 440);
  EXPECT_DOUBLE_EQ(sum.responder->p50, 60);
}

TEST(ProbeTiming, DeviceTickDifferencesStayInTheDeviceClock) {
  // Rates and masks as providers report them (ibv_query_device_ex):
  // hca_core_clock in kHz and completion_timestamp_mask.
  const uint64_t ghz = 1000000;                 // 1 GHz: one tick per ns (ConnectX-6 Dx class)
  const uint64_t mhz156 = 156250;               // 156.25 MHz: 6.4 ns per tick (ConnectX-4/5 class)
  const uint64_t mask48 = (1ull << 48) - 1;     // a 48-bit free-running counter
  EXPECT_EQ(DeviceTicksBetweenNs(4000, 5000, ghz, ~0ull), 1000u);
  EXPECT_EQ(DeviceTicksBetweenNs(1000, 1000 + 625, mhz156, ~0ull), 4000u);
  EXPECT_EQ(DeviceTicksBetweenNs(1000, 1000 + 78125, mhz156, mask48), 500000u);  // 0.5 ms
  // A 48-bit counter that wrapped between the two readings.
  EXPECT_EQ(DeviceTicksBetweenNs(mask48 - 9, 10, ghz, mask48), 20u);
  EXPECT_EQ(DeviceTicksBetweenNs(mask48 - 311, 313, mhz156, mask48), 4000u);  // 625 ticks across the wrap
  // Later before earlier (out of order, or clocks of a device reset): 0, never a huge wrap.
  EXPECT_EQ(DeviceTicksBetweenNs(5000, 4000, ghz, ~0ull), 0u);
  EXPECT_EQ(DeviceTicksBetweenNs(10, mask48 - 9, ghz, mask48), 0u);
  EXPECT_EQ(DeviceTicksBetweenNs(0, 5, 0, ~0ull), 0u);            // no clock rate
  EXPECT_EQ(DeviceTicksBetweenNs(~0ull - 1, 2, ghz, 0), 4u);      // mask 0 means 64 bits
  // Network time from one probe's four stamps, each pair in its own clock:
  // prober device ticks (T2, T5) and responder device ticks (T3, T4).
  const uint64_t rtt_ns = DeviceTicksBetweenNs(1000, 1000 + 3125, mhz156, mask48);       // 20 us
  const uint64_t responder_ns = DeviceTicksBetweenNs(777, 777 + 1000, ghz, mask48);      // 1 us
  EXPECT_DOUBLE_EQ(NetworkUs(double(rtt_ns) / 1e3, double(responder_ns) / 1e3), 19.0);
}

TEST(LruCache, EvictsLeastRecentlyUsedAndKeepsCapacity) {
  LruCache<int> c(3);
  auto any = [](const int&) { return true; };
  c.Insert("a", 1, any);
  c.Insert("b", 2, any);
  c.Insert("c", 3, any);
  ASSERT_NE(c.Find("a"), nullptr);  // a is now the most recent; b the least
  c.Insert("d", 4, any);
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c.Find("b"), nullptr);
  EXPECT_NE(c.Find("a"), nullptr);
  EXPECT_NE(c.Find("c"), nullptr);
  EXPECT_NE(c.Find("d"), nullptr);
}

TEST(LruCache, SkipsPinnedEntriesAndRefusesWhenAllArePinned) {
  LruCache<int> c(2);
  auto any = [](const int&) { return true; };
  c.Insert("a", 1, any);
  c.Insert("b", 2, any);
  // "a" (least recent) is pinned: "b" goes instead.
  ASSERT_NE(c.Insert("c", 3, [](const int& v) { return v != 1; }), nullptr);
  EXPECT_NE(c.Find("a"), nullptr);
  EXPECT_EQ(c.Find("b"), nullptr);
  EXPECT_EQ(c.Insert("d", 4, [](const int&) { return false; }), nullptr);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.Find("d"), nullptr);
  ASSERT_NE(c.Insert("a", 9, [](const int&) { return false; }), nullptr);  // update in place
  EXPECT_EQ(*c.Find("a"), 9);
}

}  // namespace
}  // namespace rdmascope::probes
