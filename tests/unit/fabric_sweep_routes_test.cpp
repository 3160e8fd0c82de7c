// The sweep with routes against an in-memory subnet: every switch's
// LinearForwardingTable read block by block up to LinearFDBTop, the tables
// walked end to end, a switch whose table read fails left without one and
// named with the MAD, and port GUIDs kept. The same code runs on ibsim in
// tests/fabric/fabric_routes.py.
#include <gtest/gtest.h>

#include <string>

#include "fabric/routes.h"
#include "fabric/sweep.h"
#include "tests/fabric/fake_subnet.h"

namespace rdmascope::fabric {
namespace {

using testing::FakeSubnet;

const FabricNode* Find(const Fabric& f, const std::string& name) {
  for (const FabricNode& n : f.nodes)
    if (n.description == name) return &n;
  return nullptr;
}

SweepOptions WithRoutes() {
  SweepOptions o;
  o.counters = false;
  o.routes = true;
  o.engine.timeout_ms = 20;
  return o;
}

TEST(SweepRoutes, ReadsEverySwitchTableAsTheSwitchHoldsIt) {
  FakeSubnet s = testing::SmallSubnet(true);
  s.RouteShortest();
  Result<Fabric> f = SweepSubnet(s, WithRoutes());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->unreachable.empty());
  for (const char* sw : {"sw1", "sw2"}) {
    const FabricNode* n = Find(*f, sw);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->lft, s.lfts[sw]) << sw;
  }
  // sw1: hca1 (LID 1) on port 1, hca2 (2) on 2, hca3 (3) and sw2 (11) by the trunk on 3, itself on 0.
  const FabricNode* sw1 = Find(*f, "sw1");
  ASSERT_EQ(sw1->lft.size(), 12u);
  EXPECT_EQ(sw1->lft[1], 1);
  EXPECT_EQ(sw1->lft[2], 2);
  EXPECT_EQ(sw1->lft[3], 3);
  EXPECT_EQ(sw1->lft[10], 0);
  EXPECT_EQ(sw1->lft[11], 3);
  EXPECT_EQ(sw1->lft[5], kNoRoute);

  Result<Route> r = RouteTable(f.value()).Trace(1, 3);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->hops.size(), 2u);
  EXPECT_EQ(r->hops[0].node->description, "sw1");
  EXPECT_EQ(r->hops[0].in_port, 1);
  EXPECT_EQ(r->hops[0].out_port, 3);
  EXPECT_EQ(r->hops[1].node->description, "sw2");
  EXPECT_EQ(r->hops[1].in_port, 3);
  EXPECT_EQ(r->hops[1].out_port, 1);
  EXPECT_EQ(r->dst.guid, 0x104u);
}

TEST(SweepRoutes, ReadsEveryBlockUpToLinearFdbTopAndCountsTheMads) {
  FakeSubnet s = testing::SmallSubnet(false);
  s.nodes[4].lid = 200;  // hca3: the table runs to LID 200, blocks 0..3
  s.RouteShortest();
  SweepOptions plain = WithRoutes();
  plain.routes = false;
  FakeSubnet s0 = s;
  Result<Fabric> without = SweepSubnet(s0, plain);
  ASSERT_TRUE(without.ok());
  for (const FabricNode& n : without->nodes) EXPECT_TRUE(n.lft.empty()) << n.description;

  Result<Fabric> f = SweepSubnet(s, WithRoutes());
  ASSERT_TRUE(f.ok());
  const FabricNode* sw2 = Find(*f, "sw2");
  ASSERT_EQ(sw2->lft.size(), 201u);
  EXPECT_EQ(sw2->lft[200], 1);
  EXPECT_EQ(sw2->lft, s.lfts["sw2"]);
  EXPECT_EQ(Find(*f, "sw1")->lft[200], 3);
  // Four blocks for each of two switches, nothing else added.
  EXPECT_EQ(f->stats.mads_sent, without->stats.mads_sent + 8);
  EXPECT_EQ(s.sent - s0.sent, 8);
  Result<Route> r = RouteTable(f.value()).Trace(2, 200);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->hops.size(), 2u);
}

TEST(SweepRoutes, ASwitchWhoseTableDoesNotAnswerKeepsNoneAndIsNamed) {
  FakeSubnet s = testing::SmallSubnet(true);
  s.RouteShortest();
  s.silent_attrs["sw2"].insert(IB_ATTR_LINEARFORWTBL);
  Result<Fabric> f = SweepSubnet(s, WithRoutes());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->nodes.size(), 5u);
  EXPECT_TRUE(Find(*f, "sw2")->lft.empty());
  EXPECT_EQ(Find(*f, "sw1")->lft, s.lfts["sw1"]);
  ASSERT_EQ(f->unreachable.size(), 1u);
  ASSERT_TRUE(f->unreachable[0].guid.has_value());
  EXPECT_EQ(*f->unreachable[0].guid, 0x201u);
  EXPECT_NE(f->unreachable[0].what.find("LinearForwardingTable block 0 via DR 0,1,3"), std::string::npos)
      << f->unreachable[0].what;
  Result<Route> r = RouteTable(f.value()).Trace(1, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("0x0000000000000201 has no forwarding table"), std::string::npos)
      << r.status().message();
}

TEST(SweepRoutes, PortsKeepTheGuidsNodeInfoGave) {
  FakeSubnet s = testing::SmallSubnet(true);
  Result<Fabric> f = SweepSubnet(s, WithRoutes());
  ASSERT_TRUE(f.ok());
  // The fake's CA port GUID is its node GUID + port; a switch's is its node GUID.
  EXPECT_EQ(Find(*f, "hca3")->ports.at(0).guid, 0x105u);
  EXPECT_EQ(Find(*f, "hca1")->ports.at(0).guid, 0x101u);
  for (const FabricPort& p : Find(*f, "sw2")->ports) EXPECT_EQ(p.guid, 0x201u) << p.number;
  // Without forwarding tables (SwitchInfo says no linear table) nothing is read and nothing is listed.
  EXPECT_TRUE(Find(*f, "sw1")->lft.empty());
  EXPECT_TRUE(f->unreachable.empty());
}

}  // namespace
}  // namespace rdmascope::fabric
