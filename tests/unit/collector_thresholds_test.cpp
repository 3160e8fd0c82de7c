// The collector's counter thresholds are the agent's (rdmactl health) table.
#include <gtest/gtest.h>

#include "agent/health.h"
#include "collector/thresholds.h"

TEST(CollectorThresholds, SameAsAgentDefaults) {
  rdmascope::Thresholds agent = rdmascope::DefaultThresholds();
  rdmascope::collector::CounterThresholds collector = rdmascope::collector::DefaultCounterThresholds();
  EXPECT_EQ(collector, agent);
}
