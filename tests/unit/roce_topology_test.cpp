// The RoCE topology file (collector/readmodel/roce_topology.h): a good file
// and each class of bad one, with the JSON pointer the error names.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "collector/readmodel/roce_topology.h"

namespace rdmascope::collector {
namespace {

const char kGood[] = R"({
  "spines": [{"name": "spine-1"}, {"name": "spine-2"}],
  "leaves": [
    {"name": "leaf-1", "hosts": [{"node": "node01"}, {"node": "node02", "rail": "0"}],
     "uplinks": [{"spine": "spine-1"}, {"spine": "spine-2"}]},
    {"name": "leaf-2", "hosts": [{"node": "node02", "rail": "1"}, {"node": "node03", "device": "mlx5_1"}],
     "uplinks": [{"spine": "spine-1", "port": 49}, {"spine": "spine-1", "port": 50}, {"spine": "spine-2"}]}
  ]
})";

TEST(RoceTopology, GoodFilePlacesEveryEnd) {
  auto t = ParseRoceTopology(kGood, "topo.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const RoceTopology& topo = t.value();
  ASSERT_EQ(topo.leaves.size(), 2u);
  EXPECT_EQ(topo.spines, (std::vector<std::string>{"spine-1", "spine-2"}));
  ASSERT_NE(topo.LeafOf("node01", "3", "mlx5_3"), nullptr);  // the node alone: every rail
  EXPECT_EQ(topo.LeafOf("node01", "3", "mlx5_3")->name, "leaf-1");
  EXPECT_EQ(topo.LeafOf("node02", "0", "")->name, "leaf-1");
  EXPECT_EQ(topo.LeafOf("node02", "1", "")->name, "leaf-2");
  EXPECT_EQ(topo.LeafOf("node02", "2", ""), nullptr);  // a rail the file does not name
  EXPECT_EQ(topo.LeafOf("node03", "1", "mlx5_1")->name, "leaf-2");
  EXPECT_EQ(topo.LeafOf("node03", "1", "mlx5_0"), nullptr);
  EXPECT_EQ(topo.LeafOf("node09", "0", "mlx5_0"), nullptr);
  EXPECT_EQ(topo.FirstLeafOf("node02")->name, "leaf-1");
  ASSERT_EQ(topo.leaves[1].uplinks.size(), 3u);
  EXPECT_EQ(UplinkName("leaf-2", topo.leaves[1].uplinks[0]), "leaf-2/49<->spine-1");
  EXPECT_EQ(UplinkName("leaf-1", topo.leaves[0].uplinks[1]), "leaf-1<->spine-2");
}

// Each bad file: the error names the file, the pointer and what was expected.
TEST(RoceTopology, BadFilesSayWhereAndWhat) {
  struct Case {
    const char* text;
    const char* want;  // a part of the message
  };
  const Case cases[] = {
      {"{", "topo.json: /: not JSON"},
      {"[]", "/: expected an object"},
      {R"({"spines": []})", "/: missing \"leaves\""},
      {R"({"leaves": [{"name": "l", "hosts": []}]})", "/: missing \"spines\""},
      {R"({"spines": [], "leaves": []})", "/leaves: expected at least one leaf"},
      {R"({"spines": [], "leaves": [], "spine": []})", "/spine: unknown key"},
      {R"({"spines": [{"name": ""}], "leaves": [{"name": "l", "hosts": []}]})", "/spines/0/name: expected a non-empty string"},
      {R"({"spines": [{"name": "s"}], "leaves": [{"name": "s", "hosts": []}]})", "/leaves/0/name: \"s\" is named twice"},
      {R"({"spines": [], "leaves": [{"name": "l"}]})", "/leaves/0: missing \"hosts\""},
      {R"({"spines": [], "leaves": [{"name": "l", "hosts": {}}]})", "/leaves/0/hosts: expected an array"},
      {R"({"spines": [], "leaves": [{"name": "l", "hosts": ["n1"]}]})", "/leaves/0/hosts/0: expected a host"},
      {R"({"spines": [], "leaves": [{"name": "l", "hosts": [{"host": "n1"}]}]})", "/leaves/0/hosts/0/host: unknown key"},
      {R"({"spines": [], "leaves": [{"name": "l", "hosts": [{"node": "n1", "rail": 0}]}]})",
       "/leaves/0/hosts/0/rail: expected a non-empty string, got 0"},
      {R"({"spines": [], "leaves": [{"name": "l", "hosts": [{"node": "n1", "rail": "0", "device": "d"}]}]})",
       "/leaves/0/hosts/0: give \"rail\" or \"device\""},
      {R"({"spines": [], "leaves": [{"name": "a", "hosts": [{"node": "n1"}]}, {"name": "b", "hosts": [{"node": "n1"}]}]})",
       "/leaves/1/hosts/0: n1 is already on leaf a"},
      {R"({"spines": [], "leaves": [{"name": "l", "hosts": [{"node": "n[3-1]"}]}]})",
       "/leaves/0/hosts/0/node: expected NAME or PREFIX[FIRST-LAST]SUFFIX"},
      {R"({"spines": [], "leaves": [{"name": "l", "hosts": [{"node": "n[1-x]"}]}]})",
       "/leaves/0/hosts/0/node: expected NAME or PREFIX[FIRST-LAST]SUFFIX"},
      {R"({"spines": [], "leaves": [{"name": "a", "hosts": [{"node": "n[1-4]"}]}, {"name": "b", "hosts": [{"node": "n3"}]}]})",
       "/leaves/1/hosts/0: n3 is already on leaf a"},
      {R"({"spines": [{"name": "s1"}], "leaves": [{"name": "l", "hosts": [], "uplinks": [{"spine": "s2"}]}]})",
       "/leaves/0/uplinks/0/spine: \"s2\" names no spine of /spines (expected one of s1)"},
      {R"({"spines": [{"name": "s1"}], "leaves": [{"name": "l", "hosts": [], "uplinks": [{"spine": "s1", "port": 0}]}]})",
       "/leaves/0/uplinks/0/port: expected a port number"},
      {R"({"spines": [{"name": "s1"}], "leaves": [{"name": "l", "hosts": [], "uplinks": [{"spine": "s1"}, {"spine": "s1"}]}]})",
       "/leaves/0/uplinks/1: l<->s1 is listed twice"},
  };
  for (const Case& c : cases) {
    auto t = ParseRoceTopology(c.text, "topo.json");
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_NE(t.status().message().find(c.want), std::string::npos) << c.text << "\n  got: " << t.status().message();
    EXPECT_NE(t.status().message().find("topology file topo.json"), std::string::npos) << t.status().message();
  }
}

TEST(RoceTopology, ARackIsOneLine) {
  auto t = ParseRoceTopology(R"({"spines": [], "leaves": [
      {"name": "leaf-3", "hosts": [{"node": "gpu[017-032]-a", "rail": "2"}]}]})", "topo.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t.value().by_rail.size(), 16u);
  ASSERT_NE(t.value().LeafOf("gpu017-a", "2", ""), nullptr);
  EXPECT_EQ(t.value().LeafOf("gpu032-a", "2", "")->name, "leaf-3");
  EXPECT_EQ(t.value().LeafOf("gpu033-a", "2", ""), nullptr);
  EXPECT_EQ(t.value().LeafOf("gpu17-a", "2", ""), nullptr);  // the width is FIRST's
}

TEST(RoceTopology, FileIsReadOrNamed) {
  char dir[] = "/tmp/roce_topology_testXXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/topo.json";
  std::ofstream(path) << kGood;
  auto t = LoadRoceTopologyFile(path);
  EXPECT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t.value().source, path);
  auto missing = LoadRoceTopologyFile(std::string(dir) + "/none.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.json: cannot read it"), std::string::npos) << missing.status().message();
  std::remove(path.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace rdmascope::collector
