// The vote with a RoCE topology file (rule 3b of diagnosis.h,
// diagnosis_tier.h, diagnosis_topology.h): paths carry no routes, each
// cross-leaf direction takes a spine by a hash, and a lossy uplink or spine
// is named with its candidate set.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_topology.h"
#include "collector/readmodel/pinglist.h"

namespace rdmascope::collector::diagnosis {
namespace {

constexpr int kLeaves = 6, kPerLeaf = 8, kSpines = 4, kCross = 24;

std::string Node(int i) { return "node" + std::to_string(i); }
std::string Leaf(int l) { return "leaf-" + std::to_string(l); }
std::string Spine(int s) { return "spine-" + std::to_string(s); }
int LeafOf(int node) { return node / kPerLeaf; }

// The spine one direction of a pair hashes onto.
int SpineOf(int from, int to) { return static_cast<int>(PairHash(Node(from), Node(to)) % kSpines); }

std::string TopologyJson() {
  std::string t = R"({"spines": [)";
  for (int s = 0; s < kSpines; ++s) t += std::string(s ? "," : "") + R"({"name": ")" + Spine(s) + "\"}";
  t += R"(], "leaves": [)";
  for (int l = 0; l < kLeaves; ++l) {
    t += std::string(l ? "," : "") + R"({"name": ")" + Leaf(l) + R"(", "hosts": [)";
    for (int k = 0; k < kPerLeaf; ++k) t += std::string(k ? "," : "") + R"({"node": ")" + Node(l * kPerLeaf + k) + "\"}";
    t += R"(], "uplinks": [)";
    for (int s = 0; s < kSpines; ++s) t += std::string(s ? "," : "") + R"({"spine": ")" + Spine(s) + "\"}";
    t += "]}";
  }
  return t + "]}";
}

struct Probe {
  int src, dst;
};

// Every node probes its own leaf and kCross nodes of other leaves, UD and
// RC, 100 probes each; the input grouped by the topology file.
struct World {
  Input in;
  std::vector<Probe> probes;
  World() {
    const int n = kLeaves * kPerLeaf;
    for (int i = 0; i < n; ++i) {
      in.nodes.push_back({Node(i), "", false, 1000});
      in.ports.push_back({Node(i), "mlx5_0", 1, "ACTIVE", true, {}, "", "", 0, {}});
    }
    for (int s = 0; s < n; ++s) {
      int cross = 0;
      for (int k = 1; k < n; ++k) {
        const int d = (s + k * 7) % n;
        if (d == s) continue;
        if (LeafOf(d) != LeafOf(s) && cross++ >= kCross) continue;
        for (const char* transport : {"ud", "rc"}) {
          PathSummary p;
          p.src = in.names.Id(Node(s)), p.dst = in.names.Id(Node(d));
          p.rail = in.names.Id("0"), p.transport = in.names.Id(transport);
          p.src_device = p.dst_device = in.names.Id("mlx5_0");
          p.interval_start_ms = 1000, p.interval_end_ms = 2000, p.sent = p.received = 100;
          p.rtt_p50_us = 10.0, p.network_p50_us = 8.0;
          in.paths.push_back(p);
          probes.push_back({s, d});
        }
      }
    }
  }
  void Group() {
    auto t = ParseRoceTopology(TopologyJson(), "test");
    ASSERT_TRUE(t.ok()) << t.status().message();
    ApplyTopology(t.value(), &in);
  }
  // Loss on every path whose direction (there or back) crosses `hit`.
  template <typename Hit>
  void Lose(Hit hit, double ratio) {
    for (size_t i = 0; i < in.paths.size(); ++i) {
      const Probe& p = probes[i];
      if (LeafOf(p.src) == LeafOf(p.dst)) continue;
      if (!hit(p.src, p.dst) && !hit(p.dst, p.src)) continue;
      in.paths[i].lost = static_cast<int64_t>(in.paths[i].sent * ratio);
      in.paths[i].received = in.paths[i].sent - in.paths[i].lost;
    }
  }
};

const nlohmann::json* Candidates(const Verdict& v) {
  for (const auto& e : v.evidence)
    if (e.value("what", "") == "candidates") return &e;
  return nullptr;
}

TEST(DiagnosisTier, CleanFleetGivesNothing) {
  World w;
  w.Group();
  EXPECT_TRUE(Diagnose(w.in).empty());
}

TEST(DiagnosisTier, TopologyGroupsByLeafAndGivesPortsTheirLeaf) {
  World w;
  w.Group();
  EXPECT_EQ(w.in.nodes[kPerLeaf].group, "leaf-1");
  EXPECT_EQ(w.in.group_names.at(static_cast<size_t>(w.in.paths[0].src_group)), Leaf(LeafOf(0)));
  EXPECT_EQ(w.in.ports[3 * kPerLeaf].switch_guid, "leaf-3");
  ASSERT_EQ(w.in.tier_leaves.size(), static_cast<size_t>(kLeaves));
  EXPECT_EQ(w.in.tier_leaves[3].uplinks.front(), "leaf-3<->spine-0");
}

TEST(DiagnosisTier, LossyUplinkIsOneLeafVerdictWithItsCandidates) {
  World w;
  w.Group();
  // leaf-3's uplink to spine-2: the directions leaving leaf-3 that hash onto spine-2, and those arriving there.
  w.Lose([](int from, int to) { return SpineOf(from, to) == 2 && (LeafOf(from) == 3 || LeafOf(to) == 3); }, 0.1);
  const std::vector<Verdict> v = Diagnose(w.in);
  ASSERT_EQ(v.size(), 1u) << (v.empty() ? "" : v[0].Key() + " ...");
  EXPECT_EQ(v[0].Key(), "switch|leaf-3|loss");
  const nlohmann::json* c = Candidates(v[0]);
  ASSERT_NE(c, nullptr) << v[0].evidence.dump();
  EXPECT_EQ((*c)["text"], "one of leaf-3's 4 uplinks");
  const auto links = (*c)["links"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(links.begin(), links.end(), "leaf-3<->spine-2"), links.end());
}

TEST(DiagnosisTier, LossySpineIsOneSpinesVerdict) {
  World w;
  w.Group();
  w.Lose([](int from, int to) { return SpineOf(from, to) == 1; }, 0.1);
  const std::vector<Verdict> v = Diagnose(w.in);
  ASSERT_EQ(v.size(), 1u) << (v.empty() ? "" : v[0].Key() + " ...");
  EXPECT_EQ(v[0].Key(), "switch|spines|loss");
  const nlohmann::json* c = Candidates(v[0]);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["text"], "one of the 4 spines");
}

TEST(DiagnosisTier, LossyHostStaysTheHost) {
  World w;
  w.Group();
  const std::string bad = Node(3 * kPerLeaf + 2);
  for (PathSummary& p : w.in.paths)
    if (w.in.names[p.src] == bad || w.in.names[p.dst] == bad) p.lost = 30, p.received = 70;
  const std::vector<Verdict> v = Diagnose(w.in);
  ASSERT_EQ(v.size(), 1u) << (v.empty() ? "" : v[0].Key() + " ...");
  EXPECT_EQ(v[0].scope, "nic");
  EXPECT_EQ(v[0].subject, bad + "/mlx5_0");
}

TEST(DiagnosisTier, LeafCutOffIsTheLeafNotTheSpines) {
  World w;
  w.Group();
  // Every cross-leaf path of leaf-2 lost: its outside is cut (a group vote), named as the switch.
  w.Lose([](int from, int to) { return LeafOf(from) == 2 || LeafOf(to) == 2; }, 0.3);
  const std::vector<Verdict> v = Diagnose(w.in);
  ASSERT_EQ(v.size(), 1u) << (v.empty() ? "" : v[0].Key() + " ...");
  EXPECT_EQ(v[0].Key(), "switch|leaf-2|loss");
}

TEST(DiagnosisTier, ScatteredBackgroundLossIsNoSwitchTier) {
  World w;
  w.Group();
  // One path in 60 loses a little, wherever it is: some leaves get a few more than others by chance.
  for (size_t i = 0; i < w.in.paths.size(); i += 60) w.in.paths[i].lost = 3, w.in.paths[i].received = 97;
  for (const Verdict& v : Diagnose(w.in)) EXPECT_EQ(Candidates(v), nullptr) << v.Key();
}

TEST(DiagnosisTier, WithoutTopologyNoCandidates) {
  World w;  // not grouped: one fleet, no tier
  w.Lose([](int from, int to) { return SpineOf(from, to) == 2 && (LeafOf(from) == 3 || LeafOf(to) == 3); }, 0.1);
  for (const Verdict& v : Diagnose(w.in)) EXPECT_EQ(Candidates(v), nullptr) << v.Key();
}

}  // namespace
}  // namespace rdmascope::collector::diagnosis
