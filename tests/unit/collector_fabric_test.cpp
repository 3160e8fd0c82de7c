// Collector: fabric sections of reports. Sweeps are made by the fabric
// library over an in-memory subnet (the same code that runs on ibsim), then
// stored: topology, link_down / link_errors / link_degraded events, the
// fabric API's queries, and pinglists grouped by leaf switch.
#include <gtest/gtest.h>

#include <infiniband/mad.h>

#include <cstdlib>
#include <string>

#include "collector/metrics/collector_metrics.h"
#include "collector/metrics/metrics_render.h"
#include "collector/readmodel/pinglist.h"
#include "collector/ingest/report_decode.h"
#include "collector/ingest/report_validate.h"
#include "collector/store/storage.h"
#include "fabric/fabric_json.h"
#include "fabric/neighbour.h"
#include "fabric/sweep.h"
#include "tests/fabric/fake_subnet.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using fabric::testing::FakeSubnet;

constexpr int64_t kT0 = 1700000000000;

FakeSubnet Subnet() { return fabric::testing::SmallSubnet(false); }

json SweepOf(FakeSubnet& s) {
  fabric::SweepOptions o;
  o.engine.timeout_ms = 20;
  auto f = fabric::SweepSubnet(s, o);
  EXPECT_TRUE(f.ok());
  return fabric::FabricToJson(f.value(), true);
}

json SweepReport(const std::string& id, int64_t at, const json& sweep) {
  json r = testing::MakeReport(id, "hca1-host", at);
  r["fabric"] = sweep;
  return r;
}

class FabricStoreTest : public ::testing::Test {
 protected:
  testsupport::ScratchDir scratch_{"collector_fabric_test"};
  void SetUp() override {
    dir_ = scratch_.path();
    StoreOptions o;
    o.path = dir_ + "/store.db";
    auto s = Storage::Open(o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
  }

  void Ingest(const json& r, int64_t at) {
    auto err = ValidateReport(r);
    ASSERT_FALSE(err.has_value()) << err->field << ": " << err->problem;
    auto res = store_->writer.Ingest(r, at);
    ASSERT_TRUE(res.ok()) << res.status().message();
  }
  json Open(const std::string& kind) {
    auto e = store_->history.Events(true, kind, std::nullopt, 100);
    EXPECT_TRUE(e.ok());
    return e.ok() ? e.value()["events"] : json::array();
  }

  std::string dir_;
  std::unique_ptr<Storage> store_;
};

TEST_F(FabricStoreTest, SweepStoresNodesPortsAndLinks) {
  FakeSubnet s = Subnet();
  Ingest(SweepReport("r1", kT0, SweepOf(s)), kT0);
  auto nodes = store_->history.FabricNodes();
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(nodes.value()["nodes"].size(), 5u);
  auto links = store_->history.FabricLinks(0);
  ASSERT_TRUE(links.ok());
  ASSERT_EQ(links.value()["links"].size(), 4u);
  bool found = false;
  for (const json& l : links.value()["links"])
    if (l["a_guid"] == "0x0000000000000200" && l["a_port"] == 3 && l["b_guid"] == "0x0000000000000201")
      found = l["b_port"] == 3 && l["a_description"] == "sw1" && l["b_description"] == "sw2";
  EXPECT_TRUE(found) << links.value().dump();
}

// Any node token sends neighbours: a neighbour adds a switch not yet known,
// but only a sweep (the sweep role) names or retypes a known one.
// Topology changes an administrator wants told: one fabric_changed record
// per sweep that changed something (none for the first sweep into an empty
// store), naming the node added, the description and the LID changed.
TEST_F(FabricStoreTest, ASweepThatChangesTheTopologyLeavesOneFabricChangedRecord) {
  auto changed = [&]() {
    auto e = store_->history.Events(false, std::string("fabric_changed"), std::nullopt, 100);
    EXPECT_TRUE(e.ok());
    return e.ok() ? e.value()["events"] : json::array();
  };
  FakeSubnet s = Subnet();
  // A first sweep whose report also carries the agent's neighbour (a
  // switch that lands in fabric_nodes before the sweep's nodes) is still
  // the first sweep.
  json first = SweepReport("r1", kT0, SweepOf(s));
  first["neighbours"] = {{{"device", "mlx5_0"}, {"local_port", 1}, {"guid", "0x0000000000000200"},
                          {"type", "Switch"}, {"description", "sw1"},
                          {"port", {{"port", 1}, {"counters", json::object()}}}}};
  Ingest(first, kT0);
  EXPECT_EQ(changed().size(), 0u) << "the first sweep adds everything: no record";
  Ingest(SweepReport("r2", kT0 + 10000, SweepOf(s)), kT0 + 10000);
  EXPECT_EQ(changed().size(), 0u) << "nothing changed";
  s.silent_attrs["sw2"] = {IB_ATTR_NODE_DESC};  // its description not read this time: "" is no change
  Ingest(SweepReport("r2b", kT0 + 15000, SweepOf(s)), kT0 + 15000);
  EXPECT_EQ(changed().size(), 0u) << changed().dump();
  s.silent_attrs.clear();
  s.nodes[3].name = "hca2-renamed";  // hca2 (LID 2)
  s.nodes[4].lid = 7;                // hca3's LID 3 -> 7
  const int h4 = s.Add({"hca4", 1, 0x106, 1, 9, {}, {}});
  s.Link(h4, 1, 2, 4);  // sw2 port 4
  Ingest(SweepReport("r3", kT0 + 20000, SweepOf(s)), kT0 + 20000);
  json e = changed();
  ASSERT_EQ(e.size(), 1u) << e.dump();
  EXPECT_EQ(e[0]["count"], 4) << e.dump();
  EXPECT_FALSE(e[0]["ended_at_ms"].is_null()) << "a record, closed as written";
  const std::string detail = e[0]["detail"].get<std::string>();
  for (const char* part : {"1 node added: 0x0000000000000106 \"hca4\"", "1 link added:",
                           "1 description changed: 0x0000000000000102 \"hca2\" -> \"hca2-renamed\"",
                           "1 LID changed: 0x0000000000000104 \"hca3\" LID 3 -> 7"})
    EXPECT_NE(detail.find(part), std::string::npos) << part << " in " << detail;
}

TEST_F(FabricStoreTest, ANeighbourAddsAnUnknownSwitchButRenamesNoKnownOne) {
  auto description_of = [&](const std::string& guid) {
    auto nodes = store_->history.FabricNodes();
    EXPECT_TRUE(nodes.ok());
    for (const json& n : nodes.value()["nodes"])
      if (n["guid"] == guid) return n["description"].get<std::string>();
    return std::string("(absent)");
  };
  auto neighbour = [](const std::string& id, int64_t at, const std::string& guid, const std::string& name) {
    json r = testing::MakeReport(id, "host1", at);
    r["neighbours"] = {{{"device", "mlx5_0"}, {"local_port", 1}, {"guid", guid}, {"type", "Switch"},
                        {"description", name}, {"port", {{"port", 3}, {"counters", json::object()}}}}};
    return r;
  };
  Ingest(neighbour("n1", kT0, "0x00000000000009aa", "first-name"), kT0);
  EXPECT_EQ(description_of("0x00000000000009aa"), "first-name");
  Ingest(neighbour("n2", kT0 + 1000, "0x00000000000009aa", "renamed-by-a-node"), kT0 + 1000);
  EXPECT_EQ(description_of("0x00000000000009aa"), "first-name");
  FakeSubnet s = Subnet();
  Ingest(SweepReport("r1", kT0 + 2000, SweepOf(s)), kT0 + 2000);
  ASSERT_EQ(description_of("0x0000000000000201"), "sw2");
  Ingest(neighbour("n3", kT0 + 3000, "0x0000000000000201", "hijacked"), kT0 + 3000);
  EXPECT_EQ(description_of("0x0000000000000201"), "sw2");
}

TEST_F(FabricStoreTest, UnlinkOpensLinkDownNamingBothEndsAndRelinkClosesIt) {
  FakeSubnet s = Subnet();
  Ingest(SweepReport("r1", kT0, SweepOf(s)), kT0);
  s.nodes[1].links.erase(3);  // sw1[3] - sw2[3] unplugged
  s.nodes[2].links.erase(3);
  Ingest(SweepReport("r2", kT0 + 10000, SweepOf(s)), kT0 + 10000);
  json open = Open("link_down");
  ASSERT_EQ(open.size(), 1u) << open.dump();
  EXPECT_EQ(open[0]["node"], "sw1");
  EXPECT_EQ(open[0]["peer"], "sw2");
  EXPECT_NE(open[0]["detail"].get<std::string>().find("0x0000000000000200[3] \"sw1\" <-> 0x0000000000000201[3] \"sw2\""),
            std::string::npos)
      << open[0]["detail"];
  s.Link(1, 3, 2, 3);
  Ingest(SweepReport("r3", kT0 + 20000, SweepOf(s)), kT0 + 20000);
  EXPECT_EQ(Open("link_down").size(), 0u);
}

TEST_F(FabricStoreTest, RetentionForgetsOldErrorHistoryAndLinksGoneLongAgo) {
  FakeSubnet s = Subnet();
  Ingest(SweepReport("r1", kT0, SweepOf(s)), kT0);
  s.nodes[1].links.erase(3);
  s.nodes[2].links.erase(3);
  Ingest(SweepReport("r2", kT0 + 10000, SweepOf(s)), kT0 + 10000);
  ASSERT_GT(store_->db.CountRows("fabric_port_samples").value(), 0);
  RetentionPolicy p;
  while (store_->retention.RetentionStep(kT0 + 100LL * 86400 * 1000, p).value() > 0) {
  }
  EXPECT_EQ(store_->db.CountRows("fabric_port_samples").value(), 0);
  auto links = store_->history.FabricLinks(0);
  ASSERT_TRUE(links.ok());
  EXPECT_EQ(links.value()["links"].size(), 3u);  // the gone one is forgotten, the others stay
}

TEST_F(FabricStoreTest, ASilentNodeIsNotALinkDown) {
  FakeSubnet s = Subnet();
  Ingest(SweepReport("r1", kT0, SweepOf(s)), kT0);
  s.silent.insert("hca3");
  Ingest(SweepReport("r2", kT0 + 10000, SweepOf(s)), kT0 + 10000);
  EXPECT_EQ(Open("link_down").size(), 0u) << Open("link_down").dump();
}

TEST_F(FabricStoreTest, ErrorRiseOnOneEndOpensLinkErrorsAndTheApiListsThePort) {
  FakeSubnet s = Subnet();
  Ingest(SweepReport("r1", kT0, SweepOf(s)), kT0);
  s.nodes[2].counters[3] = {{IB_PC_ERR_SYM_F, 42}};
  Ingest(SweepReport("r2", kT0 + 10000, SweepOf(s)), kT0 + 10000);
  json open = Open("link_errors");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0]["node"], "sw2");
  EXPECT_EQ(open[0]["peer"], "sw1");
  EXPECT_NE(open[0]["detail"].get<std::string>().find("symbol_error +42"), std::string::npos) << open[0]["detail"];
  auto errors = store_->history.FabricErrors();
  ASSERT_TRUE(errors.ok());
  ASSERT_EQ(errors.value()["ports"].size(), 1u);
  EXPECT_EQ(errors.value()["ports"][0]["counter"], "symbol_error");
  EXPECT_EQ(errors.value()["ports"][0]["remote_description"], "sw1");
  // /metrics: the port's error counter with bounded labels, and link counts.
  auto snap = store_->read.MetricsSnapshot(0, 20);
  ASSERT_TRUE(snap.ok());
  std::string text = RenderMetrics(snap.value(), CollectorMetrics(), 0);
  EXPECT_NE(text.find("rdmascope_fabric_port_symbol_error_total{guid=\"0x0000000000000201\",switch=\"sw2\",port=\"3\","
                      "peer=\"sw1\"} 42"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rdmascope_fabric_links{state=\"up\"} 4"), std::string::npos);
  EXPECT_EQ(text.find("rdmascope_fabric_port_link_downed_total"), std::string::npos);  // zero: no series
  Ingest(SweepReport("r3", kT0 + 20000, SweepOf(s)), kT0 + 20000);  // no further rise
  EXPECT_EQ(Open("link_errors").size(), 0u);
}

TEST_F(FabricStoreTest, LinkBelowWhatBothEndsSupportIsDegraded) {
  FakeSubnet s = Subnet();
  json sweep = SweepOf(s);
  for (json& n : sweep["nodes"])
    for (json& p : n["ports"])
      if (p["remote"].is_object() && p["remote"]["guid"] == "0x0000000000000102") p["width"] = "1X";
  Ingest(SweepReport("r1", kT0, sweep), kT0);
  json open = Open("link_degraded");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0]["status"], "width 1X");
  Ingest(SweepReport("r2", kT0 + 10000, SweepOf(s)), kT0 + 10000);
  EXPECT_EQ(Open("link_degraded").size(), 0u);
}

// The diagnosis reads, for each host port, the error counters of the switch
// port at the other end of its cable that rose in that port's newest sample
// over the one before: kept when the sweep wrote the sample.
TEST_F(FabricStoreTest, DiagnosisFactsCarryTheRiseOfTheNeighbourPortsNewestSample) {
  json host = testing::MakeReport("h1", "host1", kT0);
  host["neighbours"] = {{{"device", "mlx5_0"}, {"local_port", 1}, {"guid", "0x0000000000000201"}, {"type", "Switch"},
                         {"description", "sw2"}, {"port", {{"port", 3}, {"counters", json::object()}}}}};
  Ingest(host, kT0);
  FakeSubnet s = Subnet();
  Ingest(SweepReport("r1", kT0, SweepOf(s)), kT0);
  for (int i = 1; i <= 3; ++i) {
    s.nodes[2].counters[3] = {{IB_PC_ERR_SYM_F, 10u * i + (i == 3 ? 5u : 0u)}};
    Ingest(SweepReport("r" + std::to_string(i + 1), kT0 + i * 10000, SweepOf(s)), kT0 + i * 10000);
  }
  auto facts = store_->diagnoses.DiagnosisFacts(kT0 + 25000, kT0);
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  const auto& nb = facts.value().neighbours;
  ASSERT_EQ(nb.size(), 1u);
  EXPECT_EQ(nb[0].node, "host1");
  EXPECT_EQ(nb[0].switch_guid, "0x0000000000000201");
  EXPECT_EQ(nb[0].switch_port, 3);
  EXPECT_EQ(nb[0].switch_description, "sw2");
  ASSERT_EQ(nb[0].switch_rises.size(), 1u);
  EXPECT_EQ(nb[0].switch_rises[0].name, "symbol_error");
  EXPECT_EQ(nb[0].switch_rises[0].delta, 15) << "35 in the newest sample over 20 in the one before";
  EXPECT_EQ(store_->db.CountRows("fabric_port_rises").value(), 1);
  // A sweep whose error counters did not move: the sample it appends rose by
  // nothing and clears the rise, though the window still covers the old one.
  Ingest(SweepReport("r5", kT0 + 40000, SweepOf(s)), kT0 + 40000);
  EXPECT_EQ(store_->db.CountRows("fabric_port_rises").value(), 0);
  facts = store_->diagnoses.DiagnosisFacts(kT0 + 25000, kT0);
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  EXPECT_TRUE(facts.value().neighbours.at(0).switch_rises.empty());
  EXPECT_TRUE(facts.value().fabric_rises.empty());
}

// Without any sweep, the error counters agents read on their neighbour's
// port make that port's history: a rise reaches the diagnosis's facts, an
// unchanged reading adds no sample.
TEST_F(FabricStoreTest, NeighbourCountersAgentsReadBecomeThePortsSamples) {
  auto report = [&](const std::string& id, int64_t at, uint64_t symbol) {
    json host = testing::MakeReport(id, "host1", at);
    json port = {{"port", 3}, {"counters", {{"symbol_error", symbol}, {"port_xmit_data", 1000u}}}};
    json n = {{"device", "mlx5_0"}, {"local_port", 1}, {"guid", "0x0000000000000201"}, {"type", "Switch"},
              {"description", "sw2"}, {"port", port}};
    host["neighbours"] = json::array({n});
    Ingest(host, at);
  };
  report("h1", kT0, 4);
  report("h2", kT0 + 10000, 4);  // unchanged: no sample
  report("h3", kT0 + 20000, 9);  // rose by 5
  EXPECT_EQ(store_->db.CountRows("fabric_port_samples").value(), 2);
  auto facts = store_->diagnoses.DiagnosisFacts(kT0 + 15000, kT0);
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  const auto& nb = facts.value().neighbours;
  ASSERT_EQ(nb.size(), 1u);
  ASSERT_EQ(nb[0].switch_rises.size(), 1u) << "error counters only";
  EXPECT_EQ(nb[0].switch_rises[0].name, "symbol_error");
  EXPECT_EQ(nb[0].switch_rises[0].delta, 5);
  const auto& moved = facts.value().fabric_rises;
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].guid, "0x0000000000000201");
  EXPECT_EQ(moved[0].port, 3);
  EXPECT_EQ(moved[0].at, kT0 + 20000);
}

// What a report's neighbours change in the read model: a switch new to the
// store is counted in /metrics at once, a node cabled anew is grouped by its
// new leaf at once, and a neighbour that changed nothing leaves the fabric's
// counts as they were (the writer reloads them only for what changed).
TEST_F(FabricStoreTest, NeighboursMoveTheirNodesLeafAndCountANewSwitch) {
  auto neighbour = [](const std::string& id, const std::string& host, int64_t at, const std::string& guid) {
    json r = testing::MakeReport(id, host, at);
    r["labels"] = json::object();  // grouped by its leaf, not a label
    r["neighbours"] = {{{"device", "mlx5_0"}, {"local_port", 1}, {"guid", guid}, {"type", "Switch"},
                        {"description", "leaf " + guid}, {"port", {{"port", 3}, {"counters", json::object()}}}}};
    return r;
  };
  auto switches = [&]() {
    auto snap = store_->read.MetricsSnapshot(0, 20);
    EXPECT_TRUE(snap.ok());
    const std::string text = snap.ok() ? RenderMetrics(snap.value(), CollectorMetrics(), 0) : "";
    const std::string key = "rdmascope_fabric_nodes{type=\"Switch\"} ";
    const size_t at = text.find(key);
    return at == std::string::npos ? -1 : std::stoi(text.substr(at + key.size()));
  };
  auto group_of = [&](const std::string& host) {
    auto infos = store_->read.NodeInfos();
    EXPECT_TRUE(infos.ok());
    return BuildPinglist(host, infos.ok() ? infos.value() : std::vector<NodeInfo>{}, kT0 + 5000, PinglistOptions{})["group"];
  };
  Ingest(neighbour("a1", "host1", kT0, "0x00000000000009a1"), kT0);
  Ingest(neighbour("b1", "host2", kT0, "0x00000000000009a1"), kT0);
  EXPECT_EQ(switches(), 1);
  EXPECT_EQ(group_of("host1"), "leaf:0x00000000000009a1");
  Ingest(neighbour("a2", "host1", kT0 + 1000, "0x00000000000009a1"), kT0 + 1000);  // nothing changed
  EXPECT_EQ(switches(), 1);
  Ingest(neighbour("a3", "host1", kT0 + 2000, "0x00000000000009a2"), kT0 + 2000);  // recabled to a new leaf
  EXPECT_EQ(switches(), 2);
  EXPECT_EQ(group_of("host1"), "leaf:0x00000000000009a2");
  EXPECT_EQ(group_of("host2"), "leaf:0x00000000000009a1");
}

TEST_F(FabricStoreTest, PinglistGroupsHostsByLeafSwitchAndLabelsWin) {
  FakeSubnet s = Subnet();
  // Each host reports its neighbour, as the agent does (QueryNeighbour from its own port).
  auto report = [&](const std::string& host, int node_index, const std::string& id, bool label) {
    FakeSubnet view = fabric::testing::AsSeenFrom(s, node_index);
    auto nb = fabric::QueryNeighbour(view, fabric::EngineOptions{}, 1);
    ASSERT_TRUE(nb.ok()) << nb.status().message();
    json j = fabric::NeighbourToJson(nb.value());
    j["device"] = "ibsim0";
    json r = testing::MakeReport(id, host, kT0);
    r["labels"] = label ? json{{"group", "rack9"}} : json::object();
    r["neighbours"] = json::array({j});
    Ingest(r, kT0);
  };
  report("host1", 0, "n1", false);
  report("host2", 3, "n2", false);
  report("host3", 4, "n3", false);
  report("host4", 3, "n4", true);
  auto infos = store_->read.NodeInfos();
  ASSERT_TRUE(infos.ok());
  json pl = BuildPinglist("host1", infos.value(), kT0, PinglistOptions{});
  EXPECT_EQ(pl["group"], "leaf:0x0000000000000200");
  std::map<std::string, json> t;
  for (const json& x : pl["targets"]) t[x["node"].get<std::string>()] = x;
  EXPECT_TRUE(t["host2"]["same_group"]);
  EXPECT_FALSE(t["host3"]["same_group"]);
  EXPECT_EQ(t["host3"]["group"], "leaf:0x0000000000000201");
  EXPECT_EQ(t["host4"]["group"], "rack9");  // the label wins over the leaf switch
}

// Two HCAs cabled to two leaves: the pinglist of each rail groups by that
// rail's leaf (the rail's port from the probe rows, its switch from the
// neighbour report).
TEST_F(FabricStoreTest, PinglistGroupsEachRailByItsOwnLeaf) {
  auto report = [&](const std::string& host, const std::string& leaf0, const std::string& leaf1) {
    json r = testing::MakeReport("r-" + host, host, kT0);
    r["labels"] = {{"rails", "r0,r1"}};
    json probes = json::array();
    for (int rail = 0; rail < 2; ++rail) {
      json p = testing::MakeProbe(host == "h1" ? "h2" : "h1", kT0);
      p["rail"] = "r" + std::to_string(rail);
      p["local"]["device"] = "mlx5_" + std::to_string(rail);
      probes.push_back(p);
    }
    r["probes"] = probes;
    auto nb = [](int dev, const std::string& guid) {
      return json{{"device", "mlx5_" + std::to_string(dev)}, {"local_port", 1}, {"guid", guid}, {"type", "Switch"},
                  {"description", "leaf"}, {"lid", 12}, {"port", {{"port", 3}, {"lid", 12}, {"state", "ACTIVE"}}}};
    };
    r["neighbours"] = json::array({nb(0, leaf0), nb(1, leaf1)});
    Ingest(r, kT0);
  };
  report("h1", "0x0000000000000200", "0x0000000000000300");
  report("h2", "0x0000000000000200", "0x0000000000000301");
  auto infos = store_->read.NodeInfos();
  ASSERT_TRUE(infos.ok());
  json r0 = BuildPinglist("h1", infos.value(), kT0, PinglistOptions{}, "r0");
  json r1 = BuildPinglist("h1", infos.value(), kT0, PinglistOptions{}, "r1");
  EXPECT_EQ(r0["group"], "leaf:0x0000000000000200");
  EXPECT_EQ(r1["group"], "leaf:0x0000000000000300");
  ASSERT_EQ(r0["targets"].size(), 1u);
  ASSERT_EQ(r1["targets"].size(), 1u);
  EXPECT_TRUE(r0["targets"][0]["same_group"]);
  EXPECT_FALSE(r1["targets"][0]["same_group"]);
  EXPECT_EQ(r1["targets"][0]["group"], "leaf:0x0000000000000301");
}

TEST(FabricValidate, BadSectionsAreRejectedByPointer) {
  json r = testing::MakeReport("v1", "n", kT0);
  r["fabric"] = {{"nodes", {{{"guid", "0x12"}, {"type", "CA"}, {"description", "x"}, {"ports", json::array()}}}}};
  auto e = ValidateReport(r);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->field, "/fabric/nodes/0/guid");
  r.erase("fabric");
  r["neighbours"] = {{{"device", "d"}, {"local_port", 1}, {"guid", "0x0000000000000200"}, {"type", "Switch"},
                      {"description", "sw"}, {"port", {{"port", 1}, {"counters", {{"symbol_error", -1}}}}}}};
  e = ValidateReport(r);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->field, "/neighbours/0/port/counters/symbol_error");
}


// A report whose InfiniBand sections lack a guid where one is required: both
// validation paths (the DOM one and the request path's decoder) refuse it by
// the field's pointer, never by an assertion on the absent member.
void ExpectRefusedAt(const json& report, const std::string& field) {
  auto e = ValidateReport(report);
  ASSERT_TRUE(e.has_value()) << report.dump();
  EXPECT_EQ(e->field, field) << e->problem;
  DecodedReport d = DecodeReport(report.dump());
  EXPECT_EQ(d.problem, DecodedReport::Problem::kInvalid) << report.dump();
  EXPECT_EQ(d.error.field, field) << d.error.problem;
}

json Neighbour() {
  return {{"device", "mlx5_0"}, {"local_port", 1}, {"guid", "0x0000000000000201"}, {"type", "Switch"},
          {"description", "sw2"}, {"port", {{"port", 3}, {"counters", json::object()}}}};
}

TEST(FabricValidate, NeighbourWithoutGuidIsRefusedNamingTheField) {
  json r = testing::MakeReport("g1", "n", kT0);
  json n = Neighbour();
  n.erase("guid");
  r["neighbours"] = json::array({n});
  ExpectRefusedAt(r, "/neighbours/0/guid");
  r["neighbours"][0]["guid"] = 42;
  ExpectRefusedAt(r, "/neighbours/0/guid");
  r["neighbours"][0] = Neighbour();
  r["neighbours"][0].erase("port");
  ExpectRefusedAt(r, "/neighbours/0/port");
  r["neighbours"][0] = Neighbour();
  r["neighbours"][0].erase("description");
  ExpectRefusedAt(r, "/neighbours/0/description");
}

TEST(FabricValidate, FabricNodeWithoutGuidIsRefusedNamingTheField) {
  FakeSubnet s = Subnet();
  json r = SweepReport("g2", kT0, SweepOf(s));
  ASSERT_FALSE(ValidateReport(r).has_value());
  r["fabric"]["nodes"][1].erase("guid");
  ExpectRefusedAt(r, "/fabric/nodes/1/guid");
  r["fabric"]["nodes"][1]["guid"] = nullptr;
  ExpectRefusedAt(r, "/fabric/nodes/1/guid");
}

TEST(FabricValidate, PortRemoteWithoutGuidOrPortIsRefusedNamingTheField) {
  FakeSubnet s = Subnet();
  json r = SweepReport("g3", kT0, SweepOf(s));
  json* remote = nullptr;
  std::string at;
  for (size_t i = 0; i < r["fabric"]["nodes"].size() && !remote; ++i)
    for (size_t j = 0; j < r["fabric"]["nodes"][i]["ports"].size() && !remote; ++j)
      if (r["fabric"]["nodes"][i]["ports"][j]["remote"].is_object()) {
        remote = &r["fabric"]["nodes"][i]["ports"][j]["remote"];
        at = "/fabric/nodes/" + std::to_string(i) + "/ports/" + std::to_string(j) + "/remote";
      }
  ASSERT_NE(remote, nullptr);
  remote->erase("guid");
  ExpectRefusedAt(r, at + "/guid");
  (*remote)["guid"] = "0x0000000000000201";
  (*remote)["port"] = 18446744073709551615u;  // above INT64_MAX: out of range, not wrapped to -1
  ExpectRefusedAt(r, at + "/port");
  json n = Neighbour();
  n["port"]["remote"] = {{"port", 1}};
  json h = testing::MakeReport("g4", "n", kT0);
  h["neighbours"] = json::array({n});
  ExpectRefusedAt(h, "/neighbours/0/port/remote/guid");
}

TEST(FabricValidate, UnreachableViaWithoutGuidIsRefusedNamingTheField) {
  FakeSubnet s = Subnet();
  json r = SweepReport("g5", kT0, SweepOf(s));
  r["fabric"]["unreachable"] = {{{"path", "0,1"}, {"what", "timeout"}, {"via", {{"port", 2}}}}};
  ExpectRefusedAt(r, "/fabric/unreachable/0/via/guid");
}

}  // namespace
}  // namespace rdmascope::collector
