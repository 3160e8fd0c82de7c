// When a target's probe results warrant an early report (probes/probe_turn.h).
#include <gtest/gtest.h>

#include "probes/probe_turn.h"

namespace rdmascope::probes {
namespace {

using nlohmann::json;

json Entry(int sent, int lost, double min_us, bool error = false) {
  json e = {{"target", "n1"},
            {"transport", "rc"},
            {"summary", {{"sent", sent}, {"lost", lost}, {"rtt_us", {{"count", sent - lost}, {"min", min_us}}}}},
            {"errors", json::array()}};
  if (error) e["errors"].push_back({{"status_name", "RETRY_EXC_ERR"}});
  return e;
}

TEST(ProbeTurn, WhatCountsAsBad) {
  EXPECT_FALSE(HealthOfEntry(Entry(10, 0, 50)).bad);
  EXPECT_FALSE(HealthOfEntry(Entry(10, 1, 50)).bad) << "one lost probe is background";
  EXPECT_TRUE(HealthOfEntry(Entry(10, 2, 50)).bad);
  EXPECT_FALSE(HealthOfEntry(Entry(100, 2, 50)).bad) << "2 of 100 is under a fifth";
  EXPECT_TRUE(HealthOfEntry(Entry(10, 0, 50, true)).bad) << "a completion error";
  EXPECT_TRUE(HealthOfEntry(Entry(0, 0, 0)).bad) << "nothing sent (connect failure)";
  EXPECT_TRUE(HealthOfEntry(json{{"errors", json::array({json::object()})}}).bad);
  EXPECT_FALSE(HealthOfEntry(json("not an entry")).bad);
  EXPECT_FALSE(HealthOfEntry(Entry(10, 10, 0)).rtt_min_us.has_value()) << "nothing came back";
  EXPECT_EQ(HealthOfEntry(Entry(10, 0, 50)).rtt_min_us, 50.0);
}

TEST(ProbeTurn, TurnsBothWaysAndOnDelay) {
  const RoundHealth good = HealthOfEntry(Entry(10, 0, 300));
  const RoundHealth lossy = HealthOfEntry(Entry(10, 3, 300));
  EXPECT_FALSE(HealthTurned(std::nullopt, good));
  EXPECT_TRUE(HealthTurned(std::nullopt, lossy)) << "a first round that is bad";
  EXPECT_TRUE(HealthTurned(good, lossy));
  EXPECT_TRUE(HealthTurned(lossy, good));
  EXPECT_FALSE(HealthTurned(lossy, lossy));
  EXPECT_FALSE(HealthTurned(good, good));
  // +5 ms on a 300 us path: a turn, and back again.
  const RoundHealth slow = HealthOfEntry(Entry(10, 0, 5300));
  EXPECT_TRUE(HealthTurned(good, slow));
  EXPECT_TRUE(HealthTurned(slow, good));
  // Jitter is not: 2x but under 500 us, or 500 us but under 2x.
  EXPECT_FALSE(HealthTurned(good, HealthOfEntry(Entry(10, 0, 700))));
  EXPECT_FALSE(HealthTurned(HealthOfEntry(Entry(10, 0, 1000)), HealthOfEntry(Entry(10, 0, 1600))));
}

}  // namespace
}  // namespace rdmascope::probes
