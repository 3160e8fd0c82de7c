// Link coverage targets (issue 15, the link half): on a routed leaf-spine
// subnet, the inter-switch cables fewer than 2 measured paths cross get
// targets whose routes (there or back) cross them; the pinglists carry them
// first and within their budget; one more pass with those paths probed
// brings every cable to 2, and the targets stay put while they are what
// covers their cables.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis_link_targets.h"
#include "collector/diagnosis/diagnosis_routes.h"
#include "collector/readmodel/pinglist.h"
#include "collector/store/storage.h"
#include "fabric/fabric_json.h"
#include "fabric/sweep.h"
#include "tests/collector/old_database.h"
#include "tests/fabric/fake_subnet.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using fabric::testing::FakeNode;
using fabric::testing::FakeSubnet;
using nlohmann::json;

constexpr int64_t kT0 = 1700000000000;
constexpr int kLeaves = 3, kSpines = 2, kHostsPerLeaf = 2;

uint64_t HostGuid(int h) { return 0x100 + static_cast<uint64_t>(h); }
uint64_t LeafGuid(int l) { return 0x200 + static_cast<uint64_t>(l); }
uint32_t HostLid(int h) { return static_cast<uint32_t>(h + 1); }
std::string HostName(int h) { return "n" + std::to_string(h); }

// Leaves 0..2 (LIDs 10..12): hosts on ports 1..2, spine s on port 3 + s.
// Spines 0..1 (LIDs 20, 21): leaf l on port 1 + l. Hosts n0..n5 (LIDs 1..6),
// host h under leaf h / 2. A leaf sends a host of another leaf through spine
// (LID mod 2): both spines carry traffic, each leaf-spine cable some of it.
FakeSubnet LeafSpine() {
  FakeSubnet s;
  std::vector<int> host(kLeaves * kHostsPerLeaf), leaf(kLeaves), spine(kSpines);
  for (int h = 0; h < kLeaves * kHostsPerLeaf; ++h)
    host[h] = s.Add(FakeNode{"hca" + std::to_string(h), 1, HostGuid(h), 1, HostLid(h), {}, {}});
  for (int l = 0; l < kLeaves; ++l)
    leaf[l] = s.Add(FakeNode{"leaf" + std::to_string(l), 2, LeafGuid(l), 8, static_cast<uint32_t>(10 + l), {}, {}});
  for (int p = 0; p < kSpines; ++p)
    spine[p] = s.Add(FakeNode{"spine" + std::to_string(p), 2, 0x300 + static_cast<uint64_t>(p), 8,
                              static_cast<uint32_t>(20 + p), {}, {}});
  for (int h = 0; h < kLeaves * kHostsPerLeaf; ++h) s.Link(host[h], 1, leaf[h / kHostsPerLeaf], 1 + h % kHostsPerLeaf);
  for (int l = 0; l < kLeaves; ++l)
    for (int p = 0; p < kSpines; ++p) s.Link(leaf[l], 3 + p, spine[p], 1 + l);
  s.RouteShortest();
  for (int l = 0; l < kLeaves; ++l)
    for (int h = 0; h < kLeaves * kHostsPerLeaf; ++h)
      if (h / kHostsPerLeaf != l) s.lfts["leaf" + std::to_string(l)][HostLid(h)] = static_cast<uint8_t>(3 + HostLid(h) % 2);
  return s;
}

json SweepReport(FakeSubnet& s, int64_t at) {
  fabric::SweepOptions o;
  o.counters = false;
  o.routes = true;
  o.engine.timeout_ms = 20;
  auto f = fabric::SweepSubnet(s, o);
  EXPECT_TRUE(f.ok()) << f.status().message();
  json r = testing::MakeReport("sweep", "sweeper", at);
  r["fabric"] = fabric::FabricToJson(f.value(), true);
  return r;
}

// Host h's agent: its mlx5_0 port 1 is the subnet's HCA of host h.
json AgentReport(int h, int64_t at) {
  json r = testing::MakeReport("a" + std::to_string(h), HostName(h), at);
  const std::string hex = fabric::GuidText(HostGuid(h)).substr(2);
  r["inventory"]["devices"][0]["node_guid"] =
      hex.substr(0, 4) + ":" + hex.substr(4, 4) + ":" + hex.substr(8, 4) + ":" + hex.substr(12, 4);
  r["inventory"]["devices"][0]["ports"][0]["lid"] = HostLid(h);
  return r;
}

diagnosis::PathSummary Path(diagnosis::Names& names, const std::string& src, const std::string& dst) {
  diagnosis::PathSummary p;
  p.src = names.Id(src), p.dst = names.Id(dst), p.rail = names.Id("0"), p.transport = names.Id("ud");
  p.src_device = p.dst_device = names.Id("mlx5_0");
  p.sent = p.received = 10;
  return p;
}

std::set<std::string> Subjects(const diagnosis::Input& in, const diagnosis::PathSummary& p) {
  std::set<std::string> out;
  for (uint32_t id : p.Crosses()) out.insert(in.elements.at(id).subject);
  return out;
}

std::vector<std::string> Flat(const CoverageTargets& t) {
  std::vector<std::string> out;
  for (const auto& [node, list] : t.by_node)
    for (const CoverageTarget& x : list) out.push_back(x.node + ">" + x.dst + "@" + x.rail);
  return out;
}

class LinkTargetsTest : public ::testing::Test {
 protected:
  testsupport::ScratchDir scratch_{"collector_link_targets_test"};
  std::unique_ptr<Storage> store_;
  PathRouter router_;
  LinkTargetPlanner planner_;

  void SetUp() override {
    auto s = testing::OpenCurrentStore(scratch_.File("store.db"));
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
    FakeSubnet subnet = LeafSpine();
    Ingest(SweepReport(subnet, kT0));
    for (int h = 0; h < kLeaves * kHostsPerLeaf; ++h) Ingest(AgentReport(h, kT0));
    ASSERT_TRUE(router_.Refresh(*store_).ok());
  }
  void Ingest(const json& r) {
    auto res = store_->writer.Ingest(r, kT0);
    ASSERT_TRUE(res.ok()) << res.status().message();
  }
  // One pass: route the paths, then choose the targets.
  CoverageTargets Pass(diagnosis::Input* in, LinkCoverage* c) {
    router_.Resolve(in);
    return planner_.Plan(router_, *in, kT0, c);
  }
};

// The pinglists' view of the six hosts: grouped by leaf.
std::vector<NodeInfo> Nodes() {
  std::vector<NodeInfo> nodes;
  for (int h = 0; h < kLeaves * kHostsPerLeaf; ++h)
    nodes.push_back(NodeInfo{HostName(h), json::object(), kT0, fabric::GuidText(LeafGuid(h / kHostsPerLeaf))});
  return nodes;
}

TEST_F(LinkTargetsTest, CablesBelowTwoGetTargetsWhoseRoutesCrossThemAndOneMorePassCoversEveryCable) {
  // Probed today: inside each leaf, and n0 -> n2 (leaf 0 - spine 1 - leaf 1, there and back).
  diagnosis::Input in;
  for (auto [a, b] : std::vector<std::pair<int, int>>{{0, 1}, {2, 3}, {4, 5}, {0, 2}})
    in.paths.push_back(Path(in.names, HostName(a), HostName(b)));
  LinkCoverage c;
  CoverageTargets targets = Pass(&in, &c);
  EXPECT_EQ(c.switch_links, kLeaves * kSpines);
  EXPECT_EQ(c.switch_links_crossed, 2);
  EXPECT_EQ(c.switch_links_covered, 0);
  EXPECT_EQ(c.switch_links_wanting, kLeaves * kSpines);
  EXPECT_EQ(c.switch_links_unreachable, 0);
  ASSERT_GT(targets.targets, 0);
  EXPECT_EQ(c.coverage_targets, targets.targets);
  EXPECT_EQ(targets.links, kLeaves * kSpines);  // every cable wanted some
  EXPECT_EQ(c.coverage_target_links, targets.links);

  // Every target's route crosses every cable it names; no source gets more than its share.
  diagnosis::Input probe;
  std::vector<const CoverageTarget*> all;
  for (const auto& [node, list] : targets.by_node) {
    EXPECT_LE(static_cast<int>(list.size()), LinkTargetOptions().max_per_source) << node;
    for (const CoverageTarget& t : list) {
      EXPECT_EQ(t.node, node);
      EXPECT_EQ(t.rail, "0");
      EXPECT_NE(t.dst, t.node);
      EXPECT_FALSE(t.links.empty());
      probe.paths.push_back(Path(probe.names, t.node, t.dst));
      all.push_back(&t);
    }
  }
  router_.Resolve(&probe);
  for (size_t i = 0; i < all.size(); ++i) {
    const std::set<std::string> crossed = Subjects(probe, probe.paths[i]);
    for (const std::string& link : all[i]->links)
      EXPECT_TRUE(crossed.count(link)) << all[i]->node << " -> " << all[i]->dst << " does not cross " << link;
  }

  // One more pass with those paths probed: every cable crossed by 2.
  diagnosis::Input next;
  next.names = in.names;
  next.paths = in.paths;
  for (const diagnosis::PathSummary& p : probe.paths)
    next.paths.push_back(Path(next.names, probe.names[p.src], probe.names[p.dst]));
  for (auto& p : next.paths) p.crosses.clear(), p.routed = nullptr;
  LinkCoverage after;
  CoverageTargets again = Pass(&next, &after);
  EXPECT_EQ(after.switch_links_covered, kLeaves * kSpines);
  EXPECT_EQ(after.switch_links_wanting, 0);
  EXPECT_EQ(after.switch_links_unreachable, 0);
  // The targets stay while they are what covers their cables (no flapping).
  EXPECT_EQ(Flat(again), Flat(targets));
  LinkCoverage third;
  EXPECT_EQ(Flat(Pass(&next, &third)), Flat(targets));

  // Deterministic: a fresh planner over the same input chooses the same.
  LinkTargetPlanner fresh;
  router_.Resolve(&in);
  EXPECT_EQ(Flat(fresh.Plan(router_, in, kT0, nullptr)), Flat(targets));
}

TEST_F(LinkTargetsTest, ACoveredFabricGetsNoTargetsAndTheCoverageJsonSaysSo) {
  diagnosis::Input in;
  for (int a = 0; a < kLeaves * kHostsPerLeaf; ++a)
    for (int b = 0; b < kLeaves * kHostsPerLeaf; ++b)
      if (a != b) in.paths.push_back(Path(in.names, HostName(a), HostName(b)));
  LinkCoverage c;
  CoverageTargets targets = Pass(&in, &c);
  EXPECT_EQ(targets.targets, 0);
  EXPECT_TRUE(targets.by_node.empty());
  EXPECT_EQ(c.switch_links_covered, kLeaves * kSpines);
  json fabric = json::object();
  LinkTargetPlanner::AddTo(c, &fabric);
  EXPECT_EQ(fabric["switch_links_covered"], kLeaves * kSpines);
  EXPECT_EQ(fabric["coverage_targets"], 0);
  EXPECT_EQ(fabric["switch_links_unreachable"], 0);
  EXPECT_EQ(fabric["min_paths_per_link"], 2);
}

TEST_F(LinkTargetsTest, PinglistsCarryTheTargetsFirstWithinTheBudget) {
  diagnosis::Input in;  // probed inside the leaves only: no inter-switch cable crossed
  for (auto [a, b] : std::vector<std::pair<int, int>>{{0, 1}, {2, 3}, {4, 5}})
    in.paths.push_back(Path(in.names, HostName(a), HostName(b)));
  CoverageTargets targets = Pass(&in, nullptr);
  ASSERT_GT(targets.targets, 0);
  const std::vector<NodeInfo> nodes = Nodes();
  PinglistOptions o;
  o.mesh_max_nodes = 0;  // groups and cross-group slots, as in a large fleet
  for (const auto& [node, list] : targets.by_node) {
    json pl = BuildPinglist(node, nodes, kT0, o, "", &targets);
    std::set<std::string> have;
    for (const json& t : pl["targets"]) have.insert(t["node"].get<std::string>());
    std::set<std::string> cables;
    for (const CoverageTarget& t : list) {
      EXPECT_TRUE(have.count(t.dst)) << node << " lacks " << t.dst;
      cables.insert(t.links.begin(), t.links.end());
    }
    EXPECT_EQ(have.size(), pl["targets"].size()) << "a target twice: " << pl.dump();
    EXPECT_EQ(pl["coverage"]["link_targets"], list.size());
    EXPECT_EQ(pl["coverage"]["links"], cables.size());
    EXPECT_EQ(pl["rail"], nullptr);

    // A budget of one: the first link target, and the pinglist says what it dropped.
    PinglistOptions tight = o;
    tight.max_targets = 1;
    json one = BuildPinglist(node, nodes, kT0, tight, "0", &targets);
    ASSERT_EQ(one["targets"].size(), 1u) << one.dump();
    EXPECT_EQ(one["targets"][0]["node"], list.front().dst);
    EXPECT_EQ(one["coverage"]["link_targets"], 1);
    EXPECT_EQ(one["coverage"]["complete"], false);
    if (list.size() > 1) {
      EXPECT_EQ(one["coverage"]["dropped_link_targets"], list.size() - 1);
    }
  }
  // Another rail, or no targets: the pinglist is as before.
  const std::string someone = targets.by_node.begin()->first;
  EXPECT_EQ(BuildPinglist(someone, nodes, kT0, o, "1", &targets)["coverage"]["link_targets"], 0);
  // Within the budget the plan's own targets all stay: the link targets come on top.
  std::set<std::string> plain, with, expected;
  const json before = BuildPinglist(someone, nodes, kT0, o), after = BuildPinglist(someone, nodes, kT0, o, "", &targets);
  for (const json& t : before["targets"]) plain.insert(t["node"].get<std::string>());
  for (const json& t : after["targets"]) with.insert(t["node"].get<std::string>());
  expected = plain;
  for (const CoverageTarget& t : targets.by_node.at(someone)) expected.insert(t.dst);
  EXPECT_EQ(with, expected);
}

}  // namespace
}  // namespace rdmascope::collector
