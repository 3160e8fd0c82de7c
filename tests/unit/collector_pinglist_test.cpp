// Pinglists: full mesh without groups, group mesh plus a bounded
// deterministic cross-group sample, control host/port from labels.
#include <gtest/gtest.h>

#include <set>

#include "collector/readmodel/pinglist.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;

constexpr int64_t kNow = 1700000000000;

NodeInfo Node(const std::string& name, json labels = json::object(), int64_t last = kNow) {
  return NodeInfo{name, std::move(labels), last};
}

std::vector<std::string> Targets(const json& pl) {
  std::vector<std::string> out;
  for (const json& t : pl["targets"]) out.push_back(t["node"]);
  return out;
}

TEST(Pinglist, FullMeshWithoutGroups) {
  std::vector<NodeInfo> nodes = {Node("a"), Node("b"), Node("c"), Node("d")};
  json pl = BuildPinglist("b", nodes, kNow, {});
  EXPECT_EQ(Targets(pl), (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_EQ(pl["node"], "b");
  EXPECT_EQ(pl["schema_version"], 1);
}

TEST(Pinglist, ControlHostAndPortFromLabels) {
  std::vector<NodeInfo> nodes = {Node("a"), Node("b", {{"control_host", "10.0.0.2"}, {"control_port", "18700"}})};
  json pl = BuildPinglist("a", nodes, kNow, {});
  ASSERT_EQ(pl["targets"].size(), 1u);
  EXPECT_EQ(pl["targets"][0]["host"], "10.0.0.2");
  EXPECT_EQ(pl["targets"][0]["control_port"], 18700);
  json back = BuildPinglist("b", nodes, kNow, {});
  EXPECT_EQ(back["targets"][0]["host"], "a") << "without control_host the node name is the host";
  EXPECT_EQ(back["targets"][0]["control_port"], 18610);
}

TEST(Pinglist, StaleNodesLeftOut) {
  std::vector<NodeInfo> nodes = {Node("a"), Node("b"), Node("old", json::object(), kNow - 2 * 3600 * 1000)};
  EXPECT_EQ(Targets(BuildPinglist("a", nodes, kNow, {})), (std::vector<std::string>{"b"}));
}

TEST(Pinglist, GroupMeshPlusBoundedCrossGroupSample) {
  std::vector<NodeInfo> nodes;
  for (int g = 0; g < 4; ++g)
    for (int i = 0; i < 5; ++i)
      nodes.push_back(Node("n" + std::to_string(g) + std::to_string(i), {{"group", "rack" + std::to_string(g)}}));
  PinglistOptions o;
  o.cross_group_targets = 3;
  json pl = BuildPinglist("n00", nodes, kNow, o);
  int same = 0, cross = 0;
  for (const json& t : pl["targets"]) (t["same_group"].get<bool>() ? same : cross)++;
  EXPECT_EQ(same, 4);
  EXPECT_EQ(cross, 3);
  EXPECT_EQ(pl["group"], "rack0");
  // Deterministic: the same answer every time.
  EXPECT_EQ(Targets(BuildPinglist("n00", nodes, kNow, o)), Targets(pl));
  // Different requesters sample differently (the hash includes the requester).
  std::set<std::vector<std::string>> samples;
  for (int i = 0; i < 5; ++i) samples.insert(Targets(BuildPinglist("n0" + std::to_string(i), nodes, kNow, o)));
  EXPECT_GT(samples.size(), 1u);
}

TEST(Pinglist, MaxTargetsBoundsEverything) {
  std::vector<NodeInfo> nodes;
  for (int i = 0; i < 50; ++i) nodes.push_back(Node("n" + std::to_string(i), {{"group", i < 40 ? "big" : "small"}}));
  PinglistOptions o;
  o.max_targets = 10;
  o.cross_group_targets = 2;
  json pl = BuildPinglist("n0", nodes, kNow, o);
  EXPECT_EQ(pl["targets"].size(), 10u);
  int cross = 0;
  for (const json& t : pl["targets"]) cross += t["same_group"].get<bool>() ? 0 : 1;
  EXPECT_EQ(cross, 2);
}

TEST(Pinglist, UnknownRequesterGetsUngroupedNodes) {
  std::vector<NodeInfo> nodes = {Node("a"), Node("b", {{"group", "r1"}})};
  json pl = BuildPinglist("new", nodes, kNow, {});
  EXPECT_EQ(pl["targets"].size(), 2u);  // "a" in its own group, "b" as a cross-group sample
}

}  // namespace
}  // namespace rdmascope::collector
