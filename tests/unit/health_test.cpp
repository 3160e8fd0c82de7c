#include "agent/node/health.h"

#include <gtest/gtest.h>

#include "agent/node/health_state.h"

namespace rdmascope {
namespace {

Inventory OnePort(int state, int phys) {
  Inventory inv;
  Device d;
  d.name = "dev0";
  Port p;
  p.number = 1;
  p.state = NumberedName{state, state == 4 ? "ACTIVE" : "DOWN"};
  p.phys_state = NumberedName{phys, phys == 5 ? "LinkUp" : "Disabled"};
  d.ports.push_back(p);
  inv.devices.push_back(d);
  return inv;
}

TEST(Health, ActivePortWithCleanCountersIsOk) {
  Inventory inv = OnePort(4, 5);
  inv.devices[0].ports[0].counters["symbol_error"] = 9;
  EXPECT_EQ(EvaluateHealth(inv, DefaultThresholds()).severity, Severity::kOk);
}

TEST(Health, DownPortIsCritical) {
  HealthReport r = EvaluateHealth(OnePort(1, 3), DefaultThresholds());
  EXPECT_EQ(r.severity, Severity::kCritical);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].what.find("DOWN"), std::string::npos);
}

TEST(Health, CounterAboveThresholdWarns) {
  Inventory inv = OnePort(4, 5);
  inv.devices[0].ports[0].counters["symbol_error"] = 10;
  EXPECT_EQ(EvaluateHealth(inv, DefaultThresholds()).severity, Severity::kOk);  // '>' as the IB diagnostics
  inv.devices[0].ports[0].counters["symbol_error"] = 11;
  HealthReport r = EvaluateHealth(inv, DefaultThresholds());
  EXPECT_EQ(r.severity, Severity::kWarning);
  EXPECT_NE(r.findings[0].what.find("symbol_error 11 > 10"), std::string::npos);
}

TEST(Health, PreviousValuesCompareIncreases) {
  Inventory inv = OnePort(4, 5);
  inv.devices[0].ports[0].counters["symbol_error"] = 50;
  HealthOptions o;
  o.previous = HealthStateOf(inv, "b1");
  o.boot_id = "b1";
  EXPECT_EQ(EvaluateHealth(inv, DefaultThresholds(), o).severity, Severity::kOk);
  inv.devices[0].ports[0].counters["symbol_error"] = 61;
  EXPECT_EQ(EvaluateHealth(inv, DefaultThresholds(), o).severity, Severity::kWarning);
}

TEST(Health, AbsentCounterIsNotCompared) {
  Inventory inv = OnePort(4, 5);
  inv.devices[0].ports[0].counters["symbol_error"] = std::nullopt;
  EXPECT_EQ(EvaluateHealth(inv, DefaultThresholds()).severity, Severity::kOk);
}

TEST(Health, CriticalWinsOverWarning) {
  Inventory inv = OnePort(1, 3);
  inv.devices[0].ports[0].counters["link_downed"] = 50;
  EXPECT_EQ(EvaluateHealth(inv, DefaultThresholds()).severity, Severity::kCritical);
}

TEST(Health, ThresholdOverride) {
  Thresholds t = DefaultThresholds();
  ASSERT_TRUE(ParseThresholdOverride("local_ack_timeout_err=5", &t).ok());
  EXPECT_EQ(t["local_ack_timeout_err"], 5u);
  EXPECT_FALSE(ParseThresholdOverride("symbol_error", &t).ok());
  EXPECT_FALSE(ParseThresholdOverride("symbol_error=x", &t).ok());
  EXPECT_FALSE(ParseThresholdOverride("=5", &t).ok());
  Inventory inv = OnePort(4, 5);
  inv.devices[0].ports[0].hw_counters["local_ack_timeout_err"] = 7;
  EXPECT_EQ(EvaluateHealth(inv, t).severity, Severity::kWarning);
}

bool HasFinding(const HealthReport& r, const std::string& text) {
  for (const HealthFinding& f : r.findings)
    if (f.what.find(text) != std::string::npos) return true;
  return false;
}

// This run's options with the previous run's state as the state file gives it back.
HealthOptions AfterStateFile(const Inventory& previous_run, const std::string& boot_then, const std::string& boot_now) {
  auto parsed = ParseHealthState(FormatHealthState(HealthStateOf(previous_run, boot_then)));
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  HealthOptions o;
  o.previous = parsed.ok() ? *parsed : HealthState{};
  o.boot_id = boot_now;
  return o;
}

// A 16-bit error counter stuck at 65535 rises by 0 from run to run: it must
// not read OK for ever.
TEST(Health, SaturatedCounterWarnsThroughTheStateFile) {
  Inventory inv = OnePort(4, 5);
  inv.devices[0].instance = "0002:c903:0001:2345@101";
  inv.devices[0].ports[0].counters["symbol_error"] = 65535;
  HealthOptions o = AfterStateFile(inv, "b1", "b1");
  for (int run = 0; run < 3; ++run) {
    HealthReport r = EvaluateHealth(inv, DefaultThresholds(), o);
    EXPECT_EQ(r.severity, Severity::kWarning) << run;
    EXPECT_TRUE(HasFinding(r, "symbol_error saturated at 65535")) << run;
    EXPECT_TRUE(HasFinding(r, "clear it to see new ones (perfquery -x -R")) << "says what to do";
    EXPECT_FALSE(HasFinding(r, "since the previous run")) << "no increase, no threshold finding";
    o = AfterStateFile(inv, "b1", "b1");
  }
  // 8-bit link_downed at 255, a counter without a threshold of its own: a warning too.
  Thresholds none;
  inv.devices[0].ports[0].counters["symbol_error"] = 3;
  inv.devices[0].ports[0].counters["link_downed"] = 255;
  HealthReport r = EvaluateHealth(inv, none, AfterStateFile(inv, "b1", "b1"));
  EXPECT_EQ(r.severity, Severity::kWarning);
  EXPECT_TRUE(HasFinding(r, "link_downed saturated at 255"));
  // Cleared: OK again.
  inv.devices[0].ports[0].counters["link_downed"] = 0;
  EXPECT_EQ(EvaluateHealth(inv, none, AfterStateFile(inv, "b1", "b1")).severity, Severity::kOk);
}

TEST(Health, SaturatedCounterWarnsWithoutAStateFile) {
  Inventory inv = OnePort(4, 5);
  inv.devices[0].ports[0].counters["local_link_integrity_errors"] = 15;  // 4 bits
  Thresholds t = DefaultThresholds();
  t["local_link_integrity_errors"] = 100;
  HealthReport r = EvaluateHealth(inv, t);
  EXPECT_EQ(r.severity, Severity::kWarning);
  EXPECT_TRUE(HasFinding(r, "local_link_integrity_errors saturated at 15"));
}

// The 32-bit port_xmit_wait (with a threshold of 1000 given: it has none by
// default, being congestion, not an error) went from 4294967000 to 900: a
// wrap of 1196, or, when the device was re-created or the host rebooted, 900
// new since.
TEST(Health, StateFileUsesTheCounterRules) {
  Thresholds t = DefaultThresholds();
  EXPECT_EQ(t.count("port_xmit_wait"), 0u);
  t["port_xmit_wait"] = 1000;  // --threshold port_xmit_wait=1000
  Inventory before = OnePort(4, 5);
  before.devices[0].instance = "0002:c903:0001:2345@101";
  before.devices[0].ports[0].counters["port_xmit_wait"] = 4294967000ull;
  Inventory now = before;
  now.devices[0].ports[0].counters["port_xmit_wait"] = 900;

  HealthReport wrapped = EvaluateHealth(now, t, AfterStateFile(before, "b1", "b1"));
  EXPECT_EQ(wrapped.severity, Severity::kWarning);
  EXPECT_TRUE(HasFinding(wrapped, "port_xmit_wait 1196 since the previous run (wrapped) > 1000"));

  Inventory readded = now;
  readded.devices[0].instance = "0002:c903:0001:2345@202";
  EXPECT_EQ(EvaluateHealth(readded, t, AfterStateFile(before, "b1", "b1")).severity,
            Severity::kOk);
  EXPECT_EQ(EvaluateHealth(now, t, AfterStateFile(before, "b1", "b2")).severity, Severity::kOk);

  // Re-created and counting again past the threshold: all of it is new.
  readded.devices[0].ports[0].counters["port_xmit_wait"] = 5000;
  before.devices[0].ports[0].counters["port_xmit_wait"] = 4000;
  HealthReport reset = EvaluateHealth(readded, t, AfterStateFile(before, "b1", "b1"));
  EXPECT_TRUE(HasFinding(reset, "port_xmit_wait 5000 since the previous run (reset) > 1000"));
}

TEST(HealthState, RoundTripsAndReadsTheOlderFormat) {
  HealthState s;
  s.boot_id = "5f0c6e1a-3b2d-4c8e-9a7f-0123456789ab";
  s.instances["mlx5_0"] = "0002:c903:0001:2345@4711";
  s.counters["mlx5_0/1/symbol_error"] = 65535;
  s.counters["mlx5_0/1/rcvd_pkts"] = 18446744073709551615ull;
  const std::string text = FormatHealthState(s);
  EXPECT_EQ(text.find('@'), text.find("@boot_id")) << "counters first, for older readers:\n" << text;
  auto back = ParseHealthState(text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->boot_id, s.boot_id);
  EXPECT_EQ(back->instances, s.instances);
  EXPECT_EQ(back->counters, s.counters);

  auto old = ParseHealthState("mlx5_0/1/symbol_error 42\nmlx5_0/1/link_downed 1\n");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->counters.size(), 2u);
  EXPECT_TRUE(old->boot_id.empty());
  EXPECT_TRUE(old->instances.empty());
  EXPECT_TRUE(ParseHealthState("@future_key something\n").ok());

  auto bad = ParseHealthState("mlx5_0/1/symbol_error 42\nmlx5_0/1/link_downed lots\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace rdmascope
