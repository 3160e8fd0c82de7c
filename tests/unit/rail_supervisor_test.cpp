// RailSupervisor without RDMA hardware: a fixture sysfs tree whose devices
// cannot be opened (no verbs device here) gives rails that are "missing";
// their probes are reported as not run, never as loss, and nothing exits.
#include <gtest/gtest.h>

#include <atomic>

#include "agent/daemon/rail_supervisor.h"

namespace rdmascope::agent {
namespace {

const std::string kFixtures = RDMASCOPE_FIXTURES_DIR;

TEST(RailSupervisor, RailsOfAnAbsentDeviceAreNotRunNotLoss) {
  RailSupervisorOptions o;
  o.sysfs_root = kFixtures + "/sys/mlx5_ib";
  o.responder.control_port = 0;  // any free port
  o.interval_ms = 60000;
  std::atomic<int> asked{0};
  o.targets = [&asked](const std::string& rail) -> std::optional<std::vector<probes::ProbeTarget>> {
    ++asked;
    EXPECT_EQ(rail, "0");
    return std::vector<probes::ProbeTarget>{{"peer", "192.0.2.1", 18610}};
  };
  std::vector<std::string> log;
  o.log = [&log](const std::string& line) { log.push_back(line); };
  auto s = RailSupervisor::Start(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  nlohmann::json rails = (*s)->RailsJson();
  ASSERT_EQ(rails.size(), 1u) << rails.dump();
  EXPECT_EQ(rails[0]["name"], "0");
  EXPECT_EQ(rails[0]["device"], "mlx5_0");
  EXPECT_EQ(rails[0]["state"], "missing");
  EXPECT_GT(asked.load(), 0);
  std::vector<nlohmann::json> entries = (*s)->Collect();
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& e : entries) {
    EXPECT_EQ(e["rail"], "0");
    EXPECT_EQ(e["target"], "peer");
    EXPECT_EQ(e["not_run"], "local device missing");
    EXPECT_EQ(e["summary"]["sent"], 0);
    EXPECT_EQ(e["summary"]["lost"], 0);
  }
  (*s)->Stop();
}

TEST(RailSupervisor, NamedRailOnANodeWithoutDevices) {
  RailSupervisorOptions o;
  o.sysfs_root = kFixtures + "/sys/empty";
  o.responder.control_port = 0;
  o.rails = {{"r1", {"rxe1", 1}}};
  auto s = RailSupervisor::Start(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->RailNames(), std::vector<std::string>{"r1"});
  EXPECT_EQ((*s)->RailsJson()[0]["state"], "missing");
  EXPECT_TRUE((*s)->Collect().empty());  // no targets source: nothing to report
}

}  // namespace
}  // namespace rdmascope::agent
