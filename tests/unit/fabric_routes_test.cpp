// RouteTable: hops and cables through forwarding tables; JSON round trip of lft.
#include <gtest/gtest.h>

#include "fabric/fabric_json.h"
#include "fabric/routes.h"

namespace rdmascope::fabric {
namespace {

// h1 (LID 1) - s1 port 1 ; s1 port 3 - s2 port 3 ; s2 port 1 - h2 (LID 2).
// s1 is LID 10, s2 LID 11.
Fabric TwoSwitches() {
  Fabric f;
  FabricNode h1{0x1, NodeType::kCa, "h1 mlx5_0", 1, 1, {}, {}, {}};
  FabricPort p;
  p.number = 1, p.lid = 1, p.remote = RemoteEnd{0x10, 1};
  h1.ports.push_back(p);
  FabricNode h2{0x2, NodeType::kCa, "h2 mlx5_0", 1, 2, {}, {}, {}};
  p.lid = 2, p.remote = RemoteEnd{0x11, 1};
  h2.ports.push_back(p);
  FabricNode s1{0x10, NodeType::kSwitch, "s1", 3, 10, {}, {}, {}};
  FabricNode s2{0x11, NodeType::kSwitch, "s2", 3, 11, {}, {}, {}};
  FabricPort sp;
  sp.number = 1, sp.lid = 10, sp.remote = RemoteEnd{0x1, 1};
  s1.ports.push_back(sp);
  sp.number = 3, sp.remote = RemoteEnd{0x11, 3};
  s1.ports.push_back(sp);
  sp.number = 1, sp.lid = 11, sp.remote = RemoteEnd{0x2, 1};
  s2.ports.push_back(sp);
  sp.number = 3, sp.remote = RemoteEnd{0x10, 3};
  s2.ports.push_back(sp);
  s1.lft.assign(12, kNoRoute);
  s1.lft[1] = 1, s1.lft[2] = 3, s1.lft[10] = 0, s1.lft[11] = 3;
  s2.lft.assign(12, kNoRoute);
  s2.lft[1] = 3, s2.lft[2] = 1, s2.lft[10] = 3, s2.lft[11] = 0;
  f.nodes = {h1, h2, s1, s2};
  return f;
}

TEST(RouteTable, WalksForwardingTablesFromHostToHost) {
  Fabric f = TwoSwitches();
  RouteTable t(f);
  auto r = t.Trace(1, 2);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().hops.size(), 2u);
  EXPECT_EQ(r.value().hops[0].node->guid, 0x10u);
  EXPECT_EQ(r.value().hops[0].in_port, 1);
  EXPECT_EQ(r.value().hops[0].out_port, 3);
  EXPECT_EQ(r.value().hops[1].node->guid, 0x11u);
  EXPECT_EQ(r.value().hops[1].out_port, 1);
  ASSERT_EQ(r.value().cables.size(), 3u);
  EXPECT_EQ(PortRefText(r.value().cables[1].from), "0x0000000000000010:3");
  EXPECT_EQ(PortRefText(r.value().cables[1].to), "0x0000000000000011:3");
  EXPECT_EQ(r.value().dst, (PortRef{0x2, 1}));
}

TEST(RouteTable, EndsAtASwitchDestination) {
  Fabric f = TwoSwitches();
  auto r = RouteTable(f).Trace(1, 11);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().hops.size(), 2u);
  EXPECT_EQ(r.value().hops.back().out_port, 0);
  EXPECT_EQ(r.value().cables.size(), 2u);
}

TEST(RouteTable, NamesWhatStopsTheWalk) {
  Fabric f = TwoSwitches();
  f.nodes[2].lft[2] = kNoRoute;
  auto r = RouteTable(f).Trace(1, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no route to LID 2"), std::string::npos) << r.status().message();
  EXPECT_FALSE(RouteTable(f).Trace(1, 99).ok());
  f = TwoSwitches();
  f.nodes[3].lft[2] = 3;  // s2 sends it back: a loop
  r = RouteTable(f).Trace(1, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("loops"), std::string::npos) << r.status().message();
  f = TwoSwitches();
  f.nodes[3].lft.clear();
  r = RouteTable(f).Trace(1, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no forwarding table"), std::string::npos);
}

TEST(FabricJson, ForwardingTablesRoundTrip) {
  Fabric f = TwoSwitches();
  std::string text = FabricJsonText(f, false);
  EXPECT_EQ(text, FabricToJson(f, false).dump());
  auto back = FabricFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value().nodes[2].lft, f.nodes[2].lft);
  EXPECT_TRUE(back.value().nodes[0].lft.empty());
  nlohmann::json bad = nlohmann::json::parse(text);
  bad["nodes"][2]["lft"][0] = 256;
  EXPECT_FALSE(FabricFromJson(bad).ok());
}

TEST(GuidText, SpellsSixteenDigitsAndAppends) {
  EXPECT_EQ(GuidText(0x0002c90300012345u), "0x0002c90300012345");
  EXPECT_EQ(GuidText(0), "0x0000000000000000");
  EXPECT_EQ(GuidText(UINT64_MAX), "0xffffffffffffffff");
  std::string s = "a ";
  AppendGuidText(0xabcdefu, &s);
  EXPECT_EQ(s, "a 0x0000000000abcdef");
  uint64_t back = 0;
  ASSERT_TRUE(ParseGuid(GuidText(0x8000000000000001u), &back));
  EXPECT_EQ(back, 0x8000000000000001u);
}

}  // namespace
}  // namespace rdmascope::fabric
