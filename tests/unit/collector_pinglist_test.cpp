// Pinglists: full mesh without groups, group mesh plus cross-group coverage
// by design (every ordered group pair probed by min(3, |A|) distinct sources
// per period, rotating over B's members), groups per rail, the budget, and
// control host/port from labels.
#include <gtest/gtest.h>

#include <time.h>

#include <cstdio>
#include <map>
#include <set>

#include "collector/readmodel/pinglist.h"
#include "collector/readmodel/pinglist_cache.h"
#include "collector/readmodel/pinglist_coverage.h"

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

// Nodes "g<G>n<I>" in groups of the given sizes (label "group" = "g<G>").
std::vector<NodeInfo> Grouped(const std::vector<int>& sizes) {
  std::vector<NodeInfo> nodes;
  for (size_t g = 0; g < sizes.size(); ++g)
    for (int i = 0; i < sizes[g]; ++i)
      nodes.push_back(Node("g" + std::to_string(g) + "n" + std::to_string(i), {{"group", "g" + std::to_string(g)}}));
  return nodes;
}

// Builds every node's pinglist once and checks the coverage contract: every
// ordered group pair (A, B) has at least min(sources, |A|) distinct sources
// in A with a target in B; nobody is over budget or has more cross targets
// than ceil(k (G-1) / |A|); the full mesh inside each group is there.
void ExpectCoverage(const std::vector<NodeInfo>& nodes, int64_t now, const PinglistOptions& o,
                    const std::string& rail = "") {
  std::map<std::string, std::string> group_of;
  std::map<std::string, size_t> size_of;
  for (const NodeInfo& n : nodes) {
    group_of[n.name] = rail.empty() ? NodeGroup(n, o.group_label) : NodeGroup(n, o.group_label, rail);
    ++size_of[group_of[n.name]];
  }
  const size_t groups = size_of.size();
  std::map<std::pair<std::string, std::string>, std::set<std::string>> sources;  // (A, B) -> sources in A
  PinglistPlan plan(nodes, now, o, rail);
  for (const NodeInfo& n : nodes) {
    json pl = plan.For(n.name);
    const std::string& a = group_of[n.name];
    EXPECT_EQ(pl["group"], a);
    ASSERT_LE(pl["targets"].size(), static_cast<size_t>(o.max_targets)) << n.name;
    size_t same = 0, cross = 0;
    std::set<std::string> cross_groups;
    for (const json& t : pl["targets"]) {
      const std::string dst = t["node"];
      EXPECT_NE(dst, n.name);
      EXPECT_EQ(t["group"], group_of[dst]);
      if (group_of[dst] == a) {
        ++same;
      } else {
        ++cross;
        EXPECT_TRUE(cross_groups.insert(group_of[dst]).second) << n.name << ": two targets in " << group_of[dst];
        sources[{a, group_of[dst]}].insert(n.name);
      }
    }
    const size_t k = std::min<size_t>(o.sources_per_group_pair, size_of[a]);
    EXPECT_LE(cross, (k * (groups - 1) + size_of[a] - 1) / size_of[a]) << n.name;
    if (pl["coverage"]["complete"].get<bool>()) {
      EXPECT_EQ(same, size_of[a] - 1) << n.name;
    }
  }
  for (const auto& [a, na] : size_of)
    for (const auto& [b, nb] : size_of) {
      if (a == b) continue;
      const size_t want = std::min<size_t>(o.sources_per_group_pair, na);
      const size_t got = sources[std::make_pair(a, b)].size();
      EXPECT_GE(got, want) << a << " -> " << b;
    }
}

TEST(Pinglist, FullMeshWithoutGroups) {
  std::vector<NodeInfo> nodes = {Node("a"), Node("b"), Node("c"), Node("d")};
  json pl = BuildPinglist("b", nodes, kNow, {});
  EXPECT_EQ(Targets(pl), (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_EQ(pl["node"], "b");
  EXPECT_EQ(pl["schema_version"], 1);
  EXPECT_EQ(pl["coverage"]["groups"], 1);
  EXPECT_EQ(pl["coverage"]["complete"], true);
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

// A lab-sized fleet (at most mesh_max_nodes) is a full mesh, groups or not.
TEST(Pinglist, SmallFleetIsAFullMesh) {
  std::vector<NodeInfo> nodes = Grouped({3, 3});
  json pl = BuildPinglist("g0n0", nodes, kNow, {});
  EXPECT_EQ(pl["targets"].size(), 5u) << pl.dump();
  PinglistOptions plan;
  plan.mesh_max_nodes = 0;
  EXPECT_LT(BuildPinglist("g0n0", nodes, kNow, plan)["targets"].size(), 5u);
}

TEST(Pinglist, GroupMeshPlusCrossGroupShare) {
  // 4 groups of 5: 3 sources per pair, 3 * 3 = 9 cross slots over 5 members:
  // each member gets 1 or 2, one per other group at most.
  std::vector<NodeInfo> nodes = Grouped({5, 5, 5, 5});
  json pl = BuildPinglist("g0n0", nodes, kNow, {});
  int same = 0, cross = 0;
  for (const json& t : pl["targets"]) (t["same_group"].get<bool>() ? same : cross)++;
  EXPECT_EQ(same, 4);
  EXPECT_GE(cross, 1);
  EXPECT_LE(cross, 2);
  EXPECT_EQ(pl["group"], "g0");
  EXPECT_EQ(pl["coverage"]["sources_per_pair"], 3);
  EXPECT_EQ(pl["coverage"]["groups"], 4);
  // Deterministic: the same answer every time, and from a fresh plan.
  EXPECT_EQ(BuildPinglist("g0n0", nodes, kNow, {}), pl);
  EXPECT_EQ(PinglistPlan(nodes, kNow, {}).For("g0n0"), pl);
  ExpectCoverage(nodes, kNow, {});
}

TEST(Pinglist, CoverageSixtyFourGroupsOfThirtyTwo) {
  std::vector<NodeInfo> nodes = Grouped(std::vector<int>(64, 32));
  PinglistOptions o;
  ExpectCoverage(nodes, kNow, o);
  // Per requester: 31 in its group plus ceil(3 * 63 / 32) = 6 cross at most.
  json pl = BuildPinglist("g7n3", nodes, kNow, o);
  EXPECT_LE(pl["targets"].size(), 31u + 6u);
  EXPECT_GE(pl["targets"].size(), 31u + 5u);
  EXPECT_EQ(pl["coverage"]["complete"], true);
  // Other periods too.
  for (int64_t p = 1; p <= 3; ++p) ExpectCoverage(nodes, kNow + p * o.rotation_ms, o);
}

TEST(Pinglist, CoverageUnevenGroups) {
  std::vector<int> sizes;
  for (int g = 0; g < 40; ++g) sizes.push_back(1 + (g * 7) % 11);
  sizes.push_back(100);
  std::vector<NodeInfo> nodes = Grouped(sizes);
  ExpectCoverage(nodes, kNow, {});
  PinglistOptions five;
  five.sources_per_group_pair = 5;
  ExpectCoverage(nodes, kNow + 1234567, five);  // another period, nobody stale
}

TEST(Pinglist, CoverageGroupsOfOneAndTwo) {
  ExpectCoverage(Grouped(std::vector<int>(30, 1)), kNow, {});
  ExpectCoverage(Grouped(std::vector<int>(30, 2)), kNow, {});
  ExpectCoverage(Grouped({1, 2, 1, 2, 3, 1}), kNow, {});
  // A group of one probes one member of every other group.
  json pl = BuildPinglist("g0n0", Grouped(std::vector<int>(30, 1)), kNow, {});
  EXPECT_EQ(pl["targets"].size(), 29u);
}

TEST(Pinglist, RotationReachesEveryMemberOfB) {
  // A = g0 (4 members), B = g1 (10 members): 3 sources per period, every
  // member of B probed from A within ceil(10 / 3) = 4 consecutive periods,
  // starting anywhere; and every member of A a source toward B within
  // ceil(4 / 3) = 2 periods.
  std::vector<NodeInfo> nodes = Grouped({4, 10, 7});
  PinglistOptions o;
  for (int64_t start : {int64_t{0}, int64_t{5}, int64_t{1000003}}) {
    std::set<std::string> reached, sources;
    for (int64_t p = start; p < start + 4; ++p) {
      PinglistPlan plan(nodes, p * o.rotation_ms, o);
      for (int i = 0; i < 4; ++i) {
        const std::string src = "g0n" + std::to_string(i);
        const json pl = plan.For(src);
        for (const json& t : pl["targets"])
          if (t["group"] == "g1") {
            reached.insert(t["node"].get<std::string>());
            if (p < start + 2) sources.insert(src);
          }
      }
    }
    EXPECT_EQ(reached.size(), 10u) << "from period " << start;
    EXPECT_EQ(sources.size(), 4u) << "from period " << start;
  }
  // Within one period the answer does not change; the next one moves on.
  json a = BuildPinglist("g0n0", nodes, 7 * o.rotation_ms, o);
  EXPECT_EQ(BuildPinglist("g0n0", nodes, 8 * o.rotation_ms - 1, o)["targets"], a["targets"]);
  EXPECT_EQ(a["coverage"]["period"], 7);
}

TEST(Pinglist, CoverageIndexRulesExhaustive) {
  // Every (group size, other groups, copies, period): each other group has
  // k distinct sources; loads differ by at most one; one slot per group per source.
  for (size_t a = 1; a <= 9; ++a)
    for (size_t others = 0; others <= 7; ++others)
      for (int spp = 1; spp <= 4; ++spp)
        for (uint64_t t = 0; t < 12; ++t) {
          const size_t k = CoverageCopies(a, spp);
          std::vector<std::set<size_t>> src(others);
          size_t lo = SIZE_MAX, hi = 0;
          for (size_t m = 0; m < a; ++m) {
            auto slots = CrossSlotsOf(a, m, others, k, t);
            lo = std::min(lo, slots.size());
            hi = std::max(hi, slots.size());
            std::set<size_t> seen;
            for (const CrossSlot& s : slots) {
              ASSERT_LT(s.other, others);
              ASSERT_LT(s.copy, k);
              EXPECT_TRUE(seen.insert(s.other).second);
              src[s.other].insert(m);
            }
          }
          for (const auto& s : src) EXPECT_EQ(s.size(), k) << a << " " << others << " " << spp << " " << t;
          EXPECT_LE(hi - lo, 1u);
        }
  // Destinations: the k copies of a period are distinct when k <= b.
  for (size_t b = 1; b <= 9; ++b)
    for (size_t k = 1; k <= b; ++k) {
      std::set<size_t> d;
      for (size_t c = 0; c < k; ++c) d.insert(CrossMemberOf(b, 12345, k, c, 99));
      EXPECT_EQ(d.size(), k);
    }
}

TEST(Pinglist, MaxTargetsKeepsCoverageFirstAndSaysWhatItDropped) {
  std::vector<NodeInfo> nodes = Grouped({40, 1, 1, 1, 1, 1});
  PinglistOptions o;
  o.max_targets = 10;
  // A group of one must probe all 5 other groups... and its budget holds them.
  json solo = BuildPinglist("g1n0", nodes, kNow, o);
  EXPECT_EQ(solo["targets"].size(), 5u);
  EXPECT_EQ(solo["coverage"]["complete"], true);
  // A member of the big group: its cross share first, then its group sampled.
  json big = BuildPinglist("g0n0", nodes, kNow, o);
  EXPECT_EQ(big["targets"].size(), 10u);
  EXPECT_EQ(big["coverage"]["complete"], false);
  const size_t cross = big["coverage"]["cross_targets"];
  EXPECT_EQ(big["coverage"]["dropped_same_group"], 39 - (10 - cross));
  EXPECT_TRUE(big["coverage"]["dropped_cross_groups"].empty());
  ExpectCoverage(nodes, kNow, o);
  // A budget smaller than the cross share names the groups it dropped.
  o.max_targets = 2;
  json tight = BuildPinglist("g1n0", nodes, kNow, o);
  EXPECT_EQ(tight["targets"].size(), 2u);
  EXPECT_EQ(tight["coverage"]["dropped_cross_groups"].size(), 3u);
  EXPECT_EQ(tight["coverage"]["complete"], false);
}

TEST(Pinglist, UnknownRequesterGetsUngroupedNodes) {
  std::vector<NodeInfo> nodes = {Node("a"), Node("b", {{"group", "r1"}})};
  json pl = BuildPinglist("new", nodes, kNow, {});
  EXPECT_EQ(pl["targets"].size(), 2u);  // "a" in its own group, "b" as the cross-group target
  EXPECT_EQ(pl["coverage"]["requester_is_candidate"], false);
}

TEST(Pinglist, GroupsArePerRail) {
  // Four nodes on two rails: on r0 {a, b} share a leaf and {c, d} another;
  // on r1 the cabling pairs {a, c} and {b, d}.
  auto n = [](const std::string& name, const std::string& l0, const std::string& l1) {
    NodeInfo i = Node(name, {{"rails", "r0,r1"}});
    i.leaf_switch = l0;
    i.rail_leaves = {{"r0", l0}, {"r1", l1}};
    return i;
  };
  std::vector<NodeInfo> nodes = {n("a", "0x1", "0x3"), n("b", "0x1", "0x4"), n("c", "0x2", "0x3"),
                                 n("d", "0x2", "0x4")};
  PinglistOptions plan;
  plan.mesh_max_nodes = 0;  // four nodes: past the full mesh of a lab, to see the plan
  json r0 = BuildPinglist("a", nodes, kNow, plan, "r0");
  json r1 = BuildPinglist("a", nodes, kNow, plan, "r1");
  EXPECT_EQ(r0["group"], "leaf:0x1");
  EXPECT_EQ(r1["group"], "leaf:0x3");
  EXPECT_EQ(r0["targets"][0]["node"], "b");
  EXPECT_EQ(r1["targets"][0]["node"], "c");
  ExpectCoverage(nodes, kNow, plan, "r0");
  ExpectCoverage(nodes, kNow, plan, "r1");
  // A rail without a known leaf falls back to leaf_switch; a label wins.
  EXPECT_EQ(NodeGroup(nodes[0], "group", "r9"), "leaf:0x1");
  nodes[0].labels["group"] = "rack7";
  EXPECT_EQ(NodeGroup(nodes[0], "group", "r1"), "rack7");
  // Nodes without the rail are no candidates on it.
  nodes.push_back(Node("e", {{"rails", "r0"}}));
  const json r1e = BuildPinglist("a", nodes, kNow, {}, "r1");
  for (const json& t : r1e["targets"]) EXPECT_NE(t["node"], "e");
}

TEST(Pinglist, CacheSharesPlansWhileFreshAndFollowsTheRotation) {
  std::vector<NodeInfo> nodes = Grouped({3, 3});
  int fetched = 0;
  PinglistCache::NodeSource source = [&]() -> Result<std::vector<NodeInfo>> {
    ++fetched;
    return nodes;
  };
  PinglistOptions o;
  PinglistCache cache(o, 1000);
  const int64_t t0 = 10 * o.rotation_ms;
  auto a = cache.For("g0n0", "", t0, source);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value(), BuildPinglist("g0n0", nodes, t0, o));
  ASSERT_TRUE(cache.For("g0n1", "", t0 + 999, source).ok());
  ASSERT_TRUE(cache.For("g0n1", "0", t0 + 500, source).ok());  // another rail: another plan, same node list
  EXPECT_EQ(fetched, 1);
  EXPECT_EQ(cache.plans_built(), 2u);
  // A new node shows once the plans are older than the refresh.
  nodes.push_back(Node("g1n9", {{"group", "g1"}}, t0 + 1000));
  auto later = cache.For("g0n0", "", t0 + 1000, source);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(fetched, 2);
  EXPECT_EQ(later.value(), BuildPinglist("g0n0", nodes, t0 + 1000, o));
  // A new rotation period builds again at once.
  ASSERT_TRUE(cache.For("g0n0", "", 11 * o.rotation_ms, source).ok());
  EXPECT_EQ(fetched, 3);
  // A failing node list is the answer, and nothing is kept.
  PinglistCache failing(o, 1000);
  auto bad = failing.For("g0n0", "", t0, [] { return Result<std::vector<NodeInfo>>::Error("store down"); });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "store down");
  ASSERT_TRUE(failing.For("g0n0", "", t0, source).ok());
}

// CPU time of this thread (the wall clock counts the other jobs on a shared machine).
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// 2,000 nodes x 8 rails, 32 nodes per leaf on each rail (cabled differently
// per rail): every (node, rail) pinglist built once, with one plan per rail
// (as the API's cache does), and a sample of one-shot BuildPinglist calls (a
// plan per call). Prints the CPU times; the bound only catches a blow-up (a
// sanitized build is several times slower).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

TEST(Pinglist, BuildAllOfAFleet) {
  constexpr int kNodes = 2000, kRails = kSanitized ? 1 : 8;  // sanitized: one rail, for the time
  std::vector<NodeInfo> nodes;
  for (int i = 0; i < kNodes; ++i) {
    NodeInfo n = Node("node" + std::to_string(i), {{"rails", "0,1,2,3,4,5,6,7"}});
    for (int r = 0; r < kRails; ++r) n.rail_leaves[std::to_string(r)] = "0x" + std::to_string(((i * (r + 1)) % kNodes) / 32);
    n.leaf_switch = n.rail_leaves["0"];
    nodes.push_back(std::move(n));
  }
  size_t targets = 0;
  double all = 0, plans = 0, bytes = 0;  // all: plans and answers, not the servers' dumps
  for (int r = 0; r < kRails; ++r) {
    const double t0 = ThreadCpuMs();
    PinglistPlan plan(nodes, kNow, {}, std::to_string(r));
    double dumping = 0;
    for (const NodeInfo& n : nodes) {
      json pl = plan.For(n.name);
      const double t1 = ThreadCpuMs();
      targets += pl["targets"].size();
      bytes += static_cast<double>(pl.dump().size());
      dumping += ThreadCpuMs() - t1;
    }
    all += ThreadCpuMs() - t0 - dumping;
  }
  double t0 = ThreadCpuMs();  // the plans alone
  for (int r = 0; r < kRails; ++r) PinglistPlan(nodes, kNow, {}, std::to_string(r));
  plans = ThreadCpuMs() - t0;
  t0 = ThreadCpuMs();
  size_t one_shot = 0;
  constexpr int kOneShot = 100;
  for (int i = 0; i < kOneShot; ++i)
    one_shot += BuildPinglist(nodes[i * 7].name, nodes, kNow, {}, std::to_string(i % kRails))["targets"].size();
  const double each = (ThreadCpuMs() - t0) / kOneShot;
  std::printf("pinglist: %d (node, rail) pinglists, one plan per rail: %.0f ms CPU in all (%.3f ms each; the 8 "
              "plans %.1f ms), %zu targets, %.0f MB of JSON; a one-shot BuildPinglist: %.2f ms CPU (x %d = %.0f ms)\n",
              kNodes * kRails, all, all / (kNodes * kRails), plans, targets, bytes / 1e6, each,
              kNodes * kRails, each * kNodes * kRails);
  EXPECT_GT(one_shot, 0u);
  EXPECT_LT(all, 60000.0);
}

}  // namespace
}  // namespace rdmascope::collector
