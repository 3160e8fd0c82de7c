// The fleet fault simulator's topologies: generated fat trees route every
// host pair (RouteTable over their LFTs), spread destinations over the
// spines, and a discovered-routes document splits into hosts by the first
// word of CA descriptions.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "bench/sim_topology.h"
#include "fabric/fabric_json.h"

namespace rdmascope::bench {
namespace {

TEST(FleetSimTopology, FatTreeRoutesEveryHostPairInEveryPlane) {
  auto t = GenerateFatTree(4, 4, 2, 2);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const SimTopology& topo = t.value();
  ASSERT_EQ(topo.hosts.size(), 16u);
  ASSERT_EQ(topo.planes.size(), 2u);
  EXPECT_EQ(topo.rails, 2);
  EXPECT_EQ(topo.hosts[0].name, "node0001");
  EXPECT_EQ(topo.hosts[5].nics[1].device, "mlx5_1");
  EXPECT_EQ(topo.hosts[5].nics[1].rail, "1");
  for (int r = 0; r < 2; ++r) {
    const fabric::RouteTable& routes = *topo.planes[r].routes;
    for (const SimHost& a : topo.hosts)
      for (const SimHost& b : topo.hosts) {
        if (&a == &b) continue;
        const SimNic& s = a.nics[r];
        const SimNic& d = b.nics[r];
        auto route = routes.Trace(fabric::PortRef{s.guid, s.port}, d.lid);
        ASSERT_TRUE(route.ok()) << a.name << " -> " << b.name << ": " << route.status().message();
        EXPECT_EQ(route.value().dst.guid, d.guid);
        const bool same_leaf = s.leaf_guid == d.leaf_guid;
        EXPECT_EQ(route.value().hops.size(), same_leaf ? 1u : 3u) << a.name << " -> " << b.name;
      }
  }
}

TEST(FleetSimTopology, EverySwitchLidIsRoutedToo) {
  auto t = GenerateFatTree(3, 2, 3, 1);
  ASSERT_TRUE(t.ok());
  const SimTopology& topo = t.value();
  const fabric::RouteTable& routes = *topo.planes[0].routes;
  for (const fabric::FabricNode& n : topo.planes[0].fabric->nodes) {
    if (n.type != fabric::NodeType::kSwitch) continue;
    for (const SimHost& h : topo.hosts) {
      auto route = routes.Trace(fabric::PortRef{h.nics[0].guid, 1}, n.lid);
      EXPECT_TRUE(route.ok()) << h.name << " -> switch lid " << n.lid << ": " << route.status().message();
    }
  }
}

TEST(FleetSimTopology, CrossLeafDestinationsSpreadOverTheSpines) {
  auto t = GenerateFatTree(8, 8, 4, 1);
  ASSERT_TRUE(t.ok());
  const SimTopology& topo = t.value();
  const fabric::RouteTable& routes = *topo.planes[0].routes;
  std::map<uint64_t, int> by_spine;
  for (const SimHost& a : topo.hosts)
    for (const SimHost& b : topo.hosts) {
      if (a.nics[0].leaf_guid == b.nics[0].leaf_guid) continue;
      auto route = routes.Trace(fabric::PortRef{a.nics[0].guid, 1}, b.nics[0].lid);
      ASSERT_TRUE(route.ok());
      ++by_spine[route.value().hops[1].node->guid];
    }
  ASSERT_EQ(by_spine.size(), 4u);  // every spine carries traffic
  int lo = 1 << 30, hi = 0;
  for (const auto& [g, n] : by_spine) lo = std::min(lo, n), hi = std::max(hi, n);
  EXPECT_EQ(lo, hi);  // 64 destinations over 4 spines: exactly even
}

TEST(FleetSimTopology, PartlyFilledLastLeaf) {
  auto t = FatTreeFromSpec("3,4,2,1", 10);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t.value().hosts.size(), 10u);
  const fabric::RouteTable& routes = *t.value().planes[0].routes;
  auto route = routes.Trace(fabric::PortRef{t.value().hosts[0].nics[0].guid, 1}, t.value().hosts[9].nics[0].lid);
  EXPECT_TRUE(route.ok()) << route.status().message();
  EXPECT_FALSE(FatTreeFromSpec("3,x,2").ok());
  EXPECT_FALSE(FatTreeFromSpec("3,2").ok());
}

TEST(FleetSimTopology, DiscoveredRoutesSplitIntoHostsByDescription) {
  // Two planes of a generated tree written as `fabric discover --routes
  // --json` would, their descriptions renamed as an ibsim netfile names them.
  auto gen = GenerateFatTree(2, 2, 1, 2);
  ASSERT_TRUE(gen.ok());
  nlohmann::json docs = nlohmann::json::array();
  for (const SimPlane& p : gen.value().planes) {
    fabric::Fabric f = *p.fabric;
    for (fabric::FabricNode& n : f.nodes)
      if (n.type == fabric::NodeType::kCa) n.description = n.description.substr(0, n.description.find(' '));
    docs.push_back(fabric::FabricToJson(f, false));
  }
  auto t = LoadTopologyJson(docs.dump());
  ASSERT_TRUE(t.ok()) << t.status().message();
  const SimTopology& topo = t.value();
  ASSERT_EQ(topo.hosts.size(), 4u);
  EXPECT_EQ(topo.rails, 2);
  EXPECT_EQ(topo.hosts[2].name, "node0003");
  EXPECT_EQ(topo.hosts[2].nics[1].device, "mlx5_1");  // no device word: named by order
  EXPECT_EQ(topo.hosts[2].nics[1].plane, 1);
  auto route = topo.planes[1].routes->Trace(fabric::PortRef{topo.hosts[0].nics[1].guid, 1}, topo.hosts[3].nics[1].lid);
  EXPECT_TRUE(route.ok()) << route.status().message();
  EXPECT_FALSE(LoadTopologyJson("{}").ok());
  EXPECT_FALSE(LoadTopologyJson("not json").ok());
}

}  // namespace
}  // namespace rdmascope::bench
