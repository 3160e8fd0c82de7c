// The fleet fault simulator's world: faults act on the paths that cross
// them (routes both ways), and only on those, and the reports it builds pass
// the collector's own decoder.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/sim_reports.h"
#include "bench/sim_world.h"
#include "collector/ingest/report_decode.h"

namespace rdmascope::bench {
namespace {

constexpr int64_t kT0 = 1767225600000, kT1 = kT0 + 10000;

nlohmann::json Summary(SimWorld& w, size_t src, size_t dst, const char* transport, int plane = 0) {
  auto j = nlohmann::json::parse("{" + w.ProbeEntry(src, plane, dst, plane, transport, kT0, kT1, 1).substr(1));
  return j["summary"];
}

ActiveFault Active(const std::string& text, const SimTopology& t) {
  auto f = ParseFault(text, t);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return ActiveFault{f.value(), kT0, kT1 + 1};  // still on at the report (t1)
}

TEST(FleetSimWorld, CleanPathsLoseNothing) {
  auto t = GenerateFatTree(4, 4, 2, 2);
  ASSERT_TRUE(t.ok());
  SimWorld w(t.value(), WorldOptions{});
  for (const char* tr : {"ud", "rc"}) {
    auto s = Summary(w, 0, 9, tr);
    EXPECT_EQ(s["lost"], 0);
    EXPECT_EQ(s["sent"], 10);
    EXPECT_GT(s["rtt_us"]["p50"].get<double>(), 1.0);
    EXPECT_LT(s["rtt_us"]["p50"].get<double>(), 50.0);
  }
}

TEST(FleetSimWorld, DeadHostLosesEveryPathToIt) {
  auto t = GenerateFatTree(4, 4, 2, 2);
  ASSERT_TRUE(t.ok());
  SimWorld w(t.value(), WorldOptions{});
  w.SetFaults({Active("host:node0010", t.value())});
  EXPECT_TRUE(w.HostDead(9, kT0 + 5000));
  EXPECT_EQ(Summary(w, 0, 9, "ud")["received"], 0);
  auto rc = Summary(w, 0, 9, "rc");
  EXPECT_EQ(rc["received"], 0);
  EXPECT_EQ(rc["errors_by_status"]["RETRY_EXC_ERR (12)"], 10);
  EXPECT_EQ(Summary(w, 0, 8, "ud")["lost"], 0);
}

TEST(FleetSimWorld, LinkLossActsOnlyOnPathsThatCrossIt) {
  // Leaf 0 of plane 0, uplink to spine 0 (port 4 + 1): destinations with an
  // even LID leave leaf 0 that way; the return leg of such paths also
  // crosses it when the source's LID is even.
  auto t = GenerateFatTree(4, 4, 2, 1);
  ASSERT_TRUE(t.ok());
  const SimTopology& topo = t.value();
  SimWorld w(topo, WorldOptions{});
  w.SetFaults({Active("link:0x0008f10400000001/5:down", topo)});
  int crossing = 0, clear = 0;
  for (size_t dst = 4; dst < topo.hosts.size(); ++dst) {
    auto route = topo.planes[0].routes->Trace(fabric::PortRef{topo.hosts[0].nics[0].guid, 1}, topo.hosts[dst].nics[0].lid);
    ASSERT_TRUE(route.ok());
    auto back = topo.planes[0].routes->Trace(fabric::PortRef{topo.hosts[dst].nics[0].guid, 1}, topo.hosts[0].nics[0].lid);
    ASSERT_TRUE(back.ok());
    const bool crosses = route.value().hops[1].node->guid == 0x0008f10500000001ull ||
                         back.value().hops[1].node->guid == 0x0008f10500000001ull;
    const int received = Summary(w, 0, dst, "ud")["received"];
    if (crosses) {
      EXPECT_EQ(received, 0) << "dst " << dst;
      ++crossing;
    } else {
      EXPECT_EQ(received, 10) << "dst " << dst;
      ++clear;
    }
  }
  EXPECT_GT(crossing, 0);
  EXPECT_GT(clear, 0);
}

TEST(FleetSimWorld, FaultSubjectsAndExpectedVerdicts) {
  auto t = GenerateFatTree(2, 2, 1, 2);
  ASSERT_TRUE(t.ok());
  const SimTopology& topo = t.value();
  auto link = ParseFault("link:0x0008f10500000001/2:loss=0.05", topo);
  ASSERT_TRUE(link.ok()) << link.status().message();
  EXPECT_EQ(link.value().expected.Key(), "link|0x0008f10400000002/3<->0x0008f10500000001/2|loss");
  EXPECT_EQ(ParseFault("port:node0001/mlx5_1/1:down", topo).value().expected.Key(), "port|node0001/mlx5_1/1|port_down");
  EXPECT_EQ(ParseFault("switch:0x0008f10501000001", topo).value().expected.Key(), "switch|0x0008f10501000001|unreachable");
  EXPECT_EQ(ParseFault("fleet:all:delay=50%", topo).value().expected.Key(), "fleet|all|latency");
  EXPECT_EQ(ParseFault("host:node0002:rnr", topo).value().expected.Key(), "host|node0002|rnr");
  EXPECT_EQ(ParseFault("nic:node0002/mlx5_0:loss=0.3", topo).value().expected.Key(), "nic|node0002/mlx5_0|loss");
  EXPECT_EQ(ParseFault("link:0x0008f10400000001/3:flap=30", topo).value().expected.kind, "unreachable");
  EXPECT_FALSE(ParseFault("link:0x0008f10400000001/4:down", topo).ok());  // no port 4
  EXPECT_FALSE(ParseFault("host:nobody", topo).ok());
  EXPECT_FALSE(ParseFault("nic:node0001/mlx5_9:loss=0.1", topo).ok());
  EXPECT_FALSE(ParseFault("link:0x0008f10400000001/4:loss=2", topo).ok());
  EXPECT_FALSE(ParseFault("bogus:x", topo).ok());
}

TEST(FleetSimWorld, ReportsPassTheCollectorsDecoder) {
  auto t = GenerateFatTree(2, 2, 1, 2);
  ASSERT_TRUE(t.ok());
  const SimTopology& topo = t.value();
  SimWorld w(topo, WorldOptions{});
  w.SetFaults({Active("port:node0002/mlx5_1/1:down", topo), Active("switch:0x0008f10400000002", topo)});
  std::vector<RailTargets> targets = {{1, 2, 3}, {1, 2, 3}};
  for (size_t h = 0; h < topo.hosts.size(); ++h) {
    const std::string body = BuildHostReport(w, h, kT0, kT1, 1, targets, h == 0 ? 0 : -1, 10);
    auto decoded = collector::DecodeReport(body);
    ASSERT_EQ(decoded.problem, collector::DecodedReport::Problem::kNone)
        << topo.hosts[h].name << ": " << decoded.error.field << " " << decoded.error.problem;
  }
  // node0002's rail 1 port is down: its entries on that rail did not run.
  auto decoded = collector::DecodeReport(BuildHostReport(w, 1, kT0, kT1, 1, targets, -1, 10));
  int not_run = 0;
  for (const auto& p : decoded.probes) not_run += p.not_run.has_value();
  EXPECT_EQ(not_run, 2 * 2);  // its two peers on rail 1 (itself left out) x two transports
}

}  // namespace
}  // namespace rdmascope::bench
