#include "agent/node/health.h"

#include <gtest/gtest.h>

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
  o.previous = CounterSnapshot(inv);
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

}  // namespace
}  // namespace rdmascope
