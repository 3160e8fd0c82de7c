// The agent's fabric view: the neighbour of every ACTIVE IB port, the sweep
// only when due, failures as warnings; through the transport seam with an
// in-memory subnet (the same code runs on ibsim in tests/fabric).
#include <gtest/gtest.h>

#include <chrono>

#include "agent/daemon/fabric_report.h"
#include "tests/fabric/fake_subnet.h"

namespace rdmascope::agent {
namespace {

using fabric::testing::FakeSubnet;

Inventory OneIbPort(const std::string& link_layer = "InfiniBand", int state = 4) {
  Port p;
  p.number = 1;
  p.state = NumberedName{state, state == 4 ? "ACTIVE" : "DOWN"};
  p.link_layer = link_layer;
  Device d;
  d.name = "mlx5_0";
  d.ports.push_back(p);
  Inventory inv;
  inv.devices.push_back(d);
  return inv;
}

TransportOpener Fake(int* opened) {
  return [opened](const std::string&, int) -> Result<std::unique_ptr<fabric::MadTransport>> {
    ++*opened;
    return std::unique_ptr<fabric::MadTransport>(new FakeSubnet(fabric::testing::SmallSubnet(true)));
  };
}

TEST(FabricReporter, NeighbourOfAnActiveIbPortAndASweepOnlyWhenDue) {
  int opened = 0;
  FabricReporter r(std::chrono::seconds(3600), Fake(&opened));
  nlohmann::json report = nlohmann::json::object();
  std::vector<std::string> warnings;
  r.Collect(OneIbPort(), &report, &warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(report["neighbours"].size(), 1u);
  const nlohmann::json& n = report["neighbours"][0];
  EXPECT_EQ(n["device"], "mlx5_0");
  EXPECT_EQ(n["local_port"], 1);
  EXPECT_EQ(n["guid"], "0x0000000000000200");
  EXPECT_EQ(n["description"], "sw1");
  EXPECT_EQ(n["port"]["port"], 1);
  EXPECT_EQ(n["port"]["state"], "ACTIVE");
  EXPECT_TRUE(n["port"]["counters"].contains("symbol_error"));
  ASSERT_TRUE(report.contains("fabric"));
  EXPECT_EQ(report["fabric"]["nodes"].size(), 5u);
  EXPECT_EQ(report["fabric"]["from"]["device"], "mlx5_0");
  // The next report within the interval carries neighbours only.
  nlohmann::json next = nlohmann::json::object();
  r.Collect(OneIbPort(), &next, &warnings);
  EXPECT_FALSE(next.contains("fabric"));
  EXPECT_EQ(next["neighbours"].size(), 1u);
}

TEST(FabricReporter, SweepsReadRoutesUnlessToldNot) {
  int opened = 0;
  EXPECT_TRUE(FabricReporter(std::chrono::seconds(1), Fake(&opened)).routes());
  EXPECT_FALSE(FabricReporter(std::chrono::seconds(1), Fake(&opened), false).routes());
}

TEST(FabricReporter, EthernetAndDownPortsAreSkippedAndNoSweepByDefault) {
  int opened = 0;
  FabricReporter r(std::chrono::milliseconds(0), Fake(&opened));
  for (Inventory inv : {OneIbPort("Ethernet"), OneIbPort("InfiniBand", 1)}) {
    nlohmann::json report = nlohmann::json::object();
    std::vector<std::string> warnings;
    r.Collect(inv, &report, &warnings);
    EXPECT_TRUE(report["neighbours"].empty());
    EXPECT_FALSE(report.contains("fabric"));
  }
  EXPECT_EQ(opened, 0);
}

TEST(FabricReporter, FailuresAreWarningsNamingThePort) {
  FabricReporter r(std::chrono::milliseconds(0), [](const std::string&, int) -> Result<std::unique_ptr<fabric::MadTransport>> {
    return Status::Error("umad_open_port(CA mlx5_0 port 1): Permission denied");
  });
  nlohmann::json report = nlohmann::json::object();
  std::vector<std::string> warnings;
  r.Collect(OneIbPort(), &report, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "neighbour of mlx5_0 port 1: umad_open_port(CA mlx5_0 port 1): Permission denied");
  EXPECT_TRUE(report["neighbours"].empty());
}

}  // namespace
}  // namespace rdmascope::agent
