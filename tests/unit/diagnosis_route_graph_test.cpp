// RouteGraph walks exactly as RouteTable::Trace: on a generated fat tree and
// on the same tree broken in each way a walk can fail (no table entry, a port
// without a cable, a cable out of the fabric, a loop, a table pointing at the
// wrong host), every (port, LID) gives the same elements or the same refusal.
#include <gtest/gtest.h>

#include <map>

#include "bench/sim_topology.h"
#include "collector/diagnosis/diagnosis_route_graph.h"

namespace rdmascope::collector {
namespace {

// Numbers every switch and every cable end (both ends of a cable share one).
struct Numbering {
  std::map<uint64_t, uint32_t> switches;
  std::map<fabric::PortRef, uint32_t> cables;
  explicit Numbering(const fabric::Fabric& f) {
    uint32_t next = 0;
    for (const fabric::FabricNode& n : f.nodes)
      if (n.type == fabric::NodeType::kSwitch) switches.emplace(n.guid, next++);
    for (const fabric::FabricNode& n : f.nodes)
      for (const fabric::FabricPort& p : n.ports) {
        if (!p.remote) continue;
        const fabric::PortRef a{n.guid, p.number}, b{p.remote->guid, p.remote->port};
        if (cables.count(a) || cables.count(b)) continue;
        cables[a] = cables[b] = next++;
      }
  }
  uint32_t Switch(uint64_t g) const {
    auto it = switches.find(g);
    return it == switches.end() ? RouteGraph::kNone : it->second;
  }
  uint32_t Cable(const fabric::PortRef& e) const {
    auto it = cables.find(e);
    return it == cables.end() ? RouteGraph::kNone : it->second;
  }
};

struct Compared {
  int routed = 0, refused = 0;
};

// Walks from every port of every node toward every LID in 0..top+1; counts
// the walks compared and stops at the first difference.
Compared CompareAll(const fabric::Fabric& f) {
  Numbering num(f);
  RouteGraph graph;
  graph.Build(
      f, [&](uint64_t g) { return num.Switch(g); }, [&](const fabric::PortRef& e) { return num.Cable(e); });
  fabric::RouteTable table(f);
  uint32_t top = 0;
  for (const fabric::FabricNode& n : f.nodes) {
    top = std::max(top, n.lid);
    for (const fabric::FabricPort& p : n.ports) top = std::max(top, p.lid);
  }
  Compared compared;
  for (const fabric::FabricNode& n : f.nodes) {
    std::vector<int> starts{0};
    for (const fabric::FabricPort& p : n.ports)
      if (p.number >= 0 && p.number <= 255) starts.push_back(p.number);  // no InfiniBand port has another number
    for (int port : starts)
      for (uint32_t lid = 0; lid <= top + 1; ++lid) {
        auto want = table.Trace(fabric::PortRef{n.guid, port}, lid);
        std::vector<uint32_t> got{7777};  // appended after what was there
        const bool ok = graph.TraceInto(n.guid, port, lid, &got);
        EXPECT_EQ(ok, want.ok()) << fabric::GuidText(n.guid) << ":" << port << " -> LID " << lid << ": "
                                 << (want.ok() ? "routable" : want.status().message());
        if (!want.ok()) {
          ++compared.refused;
          EXPECT_EQ(got, std::vector<uint32_t>{7777});
          if (::testing::Test::HasFailure()) return compared;
          continue;
        }
        ++compared.routed;
        std::vector<uint32_t> expect{7777};
        for (const fabric::Hop& h : want.value().hops) expect.push_back(num.Switch(h.node->guid));
        for (const fabric::Cable& c : want.value().cables) expect.push_back(num.Cable(c.from));
        EXPECT_EQ(got, expect) << fabric::GuidText(n.guid) << ":" << port << " -> LID " << lid;
        if (::testing::Test::HasFailure()) return compared;
      }
  }
  return compared;
}

fabric::Fabric Tree() {
  auto t = bench::GenerateFatTree(4, 3, 2, 1);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return *t.value().planes[0].fabric;
}

fabric::FabricNode* Find(fabric::Fabric& f, fabric::NodeType type, int nth) {
  for (fabric::FabricNode& n : f.nodes)
    if (n.type == type && nth-- == 0) return &n;
  return nullptr;
}

TEST(RouteGraph, WalksAsTheForwardingTablesOnAWholeTree) {
  fabric::Fabric f = Tree();
  const Compared c = CompareAll(f);
  EXPECT_GT(c.routed, 300);  // 12 hosts and 6 switches, every port toward every LID
}

TEST(RouteGraph, RefusesWhereTheTableWalkRefuses) {
  const Compared baseline = CompareAll(Tree());  // the whole tree refuses only walks to LIDs no one has
  {  // a leaf without an entry, another without any table
    fabric::Fabric f = Tree();
    Find(f, fabric::NodeType::kSwitch, 0)->lft[f.nodes.back().lid] = fabric::kNoRoute;
    Find(f, fabric::NodeType::kSwitch, 1)->lft.clear();
    const Compared c = CompareAll(f);
    EXPECT_GT(c.refused, baseline.refused);
    EXPECT_GT(c.routed, 0);
  }
  {  // a spine port without its cable, a leaf cable to a GUID the sweep lacks
    fabric::Fabric f = Tree();
    fabric::FabricNode* spine = Find(f, fabric::NodeType::kSwitch, 4);
    ASSERT_NE(spine, nullptr);
    spine->ports[1].remote.reset();
    Find(f, fabric::NodeType::kSwitch, 2)->ports[0].remote->guid = 0xdead;
    EXPECT_GT(CompareAll(f).refused, baseline.refused);
  }
  {  // two leaves sending a LID to each other through a spine: a loop
    fabric::Fabric f = Tree();
    const uint32_t lid = f.nodes.front().lid;
    for (fabric::FabricNode& n : f.nodes)
      if (n.type == fabric::NodeType::kSwitch) n.lft[lid] = n.ports.back().number;
    EXPECT_GT(CompareAll(f).refused, baseline.refused);
  }
  {  // a table that sends a host's LID down to its neighbour; a port repeated
    fabric::Fabric f = Tree();
    fabric::FabricNode* leaf = Find(f, fabric::NodeType::kSwitch, 0);
    const uint32_t lid = f.nodes.front().lid;
    leaf->lft[lid] = static_cast<uint8_t>(leaf->lft[lid] == 1 ? 2 : 1);
    fabric::FabricPort copy = leaf->ports[0];
    copy.remote.reset();
    leaf->ports.push_back(copy);
    EXPECT_GT(CompareAll(f).refused, baseline.refused);
  }
}

// Port numbers no InfiniBand node has (ingest refuses them) are left out of
// the graph, not sized for: every valid walk stays as it was.
TEST(RouteGraph, LeavesOutPortNumbersOutsideTheRange) {
  fabric::Fabric f = Tree();
  fabric::FabricNode* spine = Find(f, fabric::NodeType::kSwitch, 4);
  ASSERT_NE(spine, nullptr);
  for (int number : {-1, 300, 2147483647}) {
    fabric::FabricPort odd;
    odd.number = number;
    spine->ports.push_back(odd);
  }
  const Compared c = CompareAll(f);
  EXPECT_EQ(c.routed, CompareAll(Tree()).routed);
}

}  // namespace
}  // namespace rdmascope::collector
