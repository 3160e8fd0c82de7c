// Collector: the switches' forwarding tables of sweeps, stored only when they
// change and never half, the topology read back for tracing (host -> switch
// -> switch -> host), its version, the agents' ports in it, retention, the
// validation of "lft", and GET /api/v1/fabric/path.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collector/diagnosis/diagnosis_routes.h"
#include "collector/ingest/report_decode.h"
#include "collector/ingest/report_validate.h"
#include "collector/store/storage.h"
#include "fabric/fabric_json.h"
#include "fabric/routes.h"
#include "fabric/sweep.h"
#include "tests/collector/old_database.h"
#include "tests/collector/test_server.h"
#include "tests/fabric/fake_subnet.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using fabric::kNoRoute;
using fabric::PortRef;
using fabric::testing::FakeSubnet;

constexpr int64_t kT0 = 1700000000000;
constexpr uint64_t kHca1 = 0x100, kHca2 = 0x102, kHca3 = 0x104, kSw1 = 0x200, kSw2 = 0x201;

// hca1 (LID 1) - sw1[1]; hca2 (LID 2) - sw1[2]; sw1[3] - sw2[3]; hca3 (LID 3) - sw2[1].
// sw1 is LID 10, sw2 LID 11.
std::vector<uint8_t> Sw1Table() {
  std::vector<uint8_t> t(12, kNoRoute);
  t[1] = 1, t[2] = 2, t[3] = 3, t[10] = 0, t[11] = 3;
  return t;
}
std::vector<uint8_t> Sw2Table() {
  std::vector<uint8_t> t(12, kNoRoute);
  t[1] = 3, t[2] = 3, t[3] = 1, t[10] = 3, t[11] = 0;
  return t;
}

json SweepOf(FakeSubnet& s) {
  fabric::SweepOptions o;
  o.engine.timeout_ms = 20;
  auto f = fabric::SweepSubnet(s, o);
  EXPECT_TRUE(f.ok());
  return fabric::FabricToJson(f.value(), true);
}

// The sweep with the switches' tables, as a sweep that read routes reports them.
json WithRoutes(json sweep, const std::vector<uint8_t>& sw1 = Sw1Table(),
                const std::vector<uint8_t>& sw2 = Sw2Table()) {
  for (json& n : sweep["nodes"]) {
    if (n["guid"] == fabric::GuidText(kSw1)) n["lft"] = sw1;
    if (n["guid"] == fabric::GuidText(kSw2)) n["lft"] = sw2;
  }
  return sweep;
}

json SweepReport(const std::string& id, int64_t at, const json& sweep) {
  json r = testing::MakeReport(id, "sweeper", at);
  r["fabric"] = sweep;
  return r;
}

// An agent whose mlx5_0 port 1 is the fake subnet's HCA `guid` at `lid`.
json AgentReport(const std::string& id, const std::string& node, int64_t at, uint64_t guid, int lid) {
  json r = testing::MakeReport(id, node, at);
  const std::string hex = fabric::GuidText(guid).substr(2);
  r["inventory"]["devices"][0]["node_guid"] =
      hex.substr(0, 4) + ":" + hex.substr(4, 4) + ":" + hex.substr(8, 4) + ":" + hex.substr(12, 4);
  r["inventory"]["devices"][0]["ports"][0]["lid"] = lid;
  return r;
}

class RoutesStoreTest : public ::testing::Test {
 protected:
  testsupport::ScratchDir scratch_{"collector_routes_test"};
  void SetUp() override {
    StoreOptions o;
    o.path = scratch_.File("store.db");
    o.synchronous_full = false;
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
  FabricTopology Topology() {
    auto t = store_->topology.Topology();
    EXPECT_TRUE(t.ok()) << t.status().message();
    return t.ok() ? std::move(t).value() : FabricTopology{};
  }
  int64_t Version() {
    auto v = store_->topology.Version();
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? v.value() : -1;
  }
  // swept_at of a switch's stored table, read on a connection of its own (-1: none).
  int64_t SweptAt(uint64_t guid) {
    auto db = Db::OpenReadOnly(scratch_.File("store.db"));
    EXPECT_TRUE(db.ok());
    auto q = db.value().Prepare("SELECT swept_at FROM fabric_lfts WHERE guid = ?1");
    EXPECT_TRUE(q.ok());
    q.value().Bind(1, fabric::GuidText(guid));
    auto row = q.value().Step();
    return row.ok() && row.value() ? q.value().Int(0) : -1;
  }

  std::unique_ptr<Storage> store_;
};

const fabric::FabricNode* NodeOf(const FabricTopology& t, uint64_t guid) {
  for (const auto& n : t.fabric.nodes)
    if (n.guid == guid) return &n;
  return nullptr;
}

TEST_F(RoutesStoreTest, TheStoredTopologyTracesHostToSwitchToSwitchToHost) {
  FakeSubnet s = fabric::testing::SmallSubnet(false);
  const int64_t before = Version();
  Ingest(SweepReport("r1", kT0, WithRoutes(SweepOf(s))), kT0);
  FabricTopology t = Topology();
  EXPECT_GT(t.version, before);
  EXPECT_EQ(t.version, Version());
  ASSERT_EQ(t.fabric.nodes.size(), 5u);
  ASSERT_NE(NodeOf(t, kSw1), nullptr);
  EXPECT_EQ(NodeOf(t, kSw1)->lft, Sw1Table());
  EXPECT_EQ(NodeOf(t, kSw1)->type, fabric::NodeType::kSwitch);
  EXPECT_TRUE(NodeOf(t, kHca1)->lft.empty());

  fabric::RouteTable routes(t.fabric);
  auto r = routes.Trace(PortRef{kHca1, 1}, 3);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().hops.size(), 2u);
  EXPECT_EQ(r.value().hops[0].node->guid, kSw1);
  EXPECT_EQ(r.value().hops[0].in_port, 1);
  EXPECT_EQ(r.value().hops[0].out_port, 3);
  EXPECT_EQ(r.value().hops[1].node->guid, kSw2);
  EXPECT_EQ(r.value().hops[1].in_port, 3);
  EXPECT_EQ(r.value().hops[1].out_port, 1);
  EXPECT_EQ(r.value().dst, (PortRef{kHca3, 1}));
  ASSERT_EQ(r.value().cables.size(), 3u);
  EXPECT_EQ(r.value().cables[1].from, (PortRef{kSw1, 3}));
  EXPECT_EQ(r.value().cables[1].to, (PortRef{kSw2, 3}));
  // The other way, and to a host on the same switch.
  EXPECT_TRUE(routes.Trace(PortRef{kHca3, 1}, 1).ok());
  auto same = routes.Trace(PortRef{kHca1, 1}, 2);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same.value().hops.size(), 1u);
}

TEST_F(RoutesStoreTest, AnIdenticalSweepDoesNotRewriteTheTableAndAChangedOneDoes) {
  FakeSubnet s = fabric::testing::SmallSubnet(false);
  Ingest(SweepReport("r1", kT0, WithRoutes(SweepOf(s))), kT0);
  const int64_t v1 = Version();
  EXPECT_EQ(SweptAt(kSw1), kT0);
  // The same subnet again: nothing a trace reads changed.
  Ingest(SweepReport("r2", kT0 + 10000, WithRoutes(SweepOf(s))), kT0 + 10000);
  EXPECT_EQ(SweptAt(kSw1), kT0);
  EXPECT_EQ(SweptAt(kSw2), kT0);
  EXPECT_EQ(Version(), v1);
  // A sweep without routes keeps the tables stored.
  Ingest(SweepReport("r3", kT0 + 20000, SweepOf(s)), kT0 + 20000);
  EXPECT_EQ(Version(), v1);
  EXPECT_EQ(NodeOf(Topology(), kSw1)->lft, Sw1Table());
  // sw1 loses its route to LID 3: only sw1's table is written, the version moves.
  std::vector<uint8_t> changed = Sw1Table();
  changed[3] = kNoRoute;
  Ingest(SweepReport("r4", kT0 + 30000, WithRoutes(SweepOf(s), changed)), kT0 + 30000);
  EXPECT_EQ(SweptAt(kSw1), kT0 + 30000);
  EXPECT_EQ(SweptAt(kSw2), kT0);
  EXPECT_GT(Version(), v1);
  FabricTopology t = Topology();
  EXPECT_EQ(NodeOf(t, kSw1)->lft, changed);
  auto r = fabric::RouteTable(t.fabric).Trace(PortRef{kHca1, 1}, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no route to LID 3"), std::string::npos) << r.status().message();
  // A late report of an older sweep does not put its table back.
  Ingest(SweepReport("r0", kT0 + 25000, WithRoutes(SweepOf(s))), kT0 + 25000);
  EXPECT_EQ(NodeOf(Topology(), kSw1)->lft, changed);
  EXPECT_EQ(SweptAt(kSw1), kT0 + 30000);
}

TEST_F(RoutesStoreTest, ALinkGoneLeavesTheTopologyAndMovesTheVersion) {
  FakeSubnet s = fabric::testing::SmallSubnet(false);
  Ingest(SweepReport("r1", kT0, WithRoutes(SweepOf(s))), kT0);
  const int64_t v1 = Version();
  s.nodes[1].links.erase(3);  // sw1[3] - sw2[3] unplugged
  s.nodes[2].links.erase(3);
  Ingest(SweepReport("r2", kT0 + 10000, WithRoutes(SweepOf(s))), kT0 + 10000);
  FabricTopology t = Topology();
  EXPECT_GT(t.version, v1);
  for (const auto& p : NodeOf(t, kSw1)->ports)
    if (p.number == 3) {
      EXPECT_FALSE(p.remote.has_value());
    }
  EXPECT_FALSE(fabric::RouteTable(t.fabric).Trace(PortRef{kHca1, 1}, 3).ok());
  s.Link(1, 3, 2, 3);
  Ingest(SweepReport("r3", kT0 + 20000, WithRoutes(SweepOf(s))), kT0 + 20000);
  t = Topology();
  EXPECT_GT(t.version, v1 + 1);
  EXPECT_TRUE(fabric::RouteTable(t.fabric).Trace(PortRef{kHca1, 1}, 3).ok());
}

TEST_F(RoutesStoreTest, ATableIsNeverStoredHalf) {
  FakeSubnet s = fabric::testing::SmallSubnet(false);
  int tables = 0;
  store_->db.SetIngestFaultHook([&](const std::string& step) {
    return step == "lft" && ++tables == 2 ? Status::Error("injected: disk trouble at the second table")
                                          : Status::Ok();
  });
  auto res = store_->writer.Ingest(SweepReport("r1", kT0, WithRoutes(SweepOf(s))), kT0);
  EXPECT_FALSE(res.ok());
  EXPECT_EQ(store_->db.CountRows("fabric_lfts").value(), 0);
  EXPECT_EQ(store_->db.CountRows("fabric_nodes").value(), 0);
  store_->db.SetIngestFaultHook(nullptr);
  Ingest(SweepReport("r1", kT0, WithRoutes(SweepOf(s))), kT0);
  EXPECT_EQ(store_->db.CountRows("fabric_lfts").value(), 2);
}

TEST_F(RoutesStoreTest, RetentionForgetsTheTablesOfSwitchesNotSeenForTheForgetAge) {
  FakeSubnet s = fabric::testing::SmallSubnet(false);
  Ingest(SweepReport("r1", kT0, WithRoutes(SweepOf(s))), kT0);
  RetentionPolicy p;
  ASSERT_TRUE(store_->retention.RetentionStep(kT0 + p.forget_after_ms - 1, p).ok());
  EXPECT_EQ(store_->db.CountRows("fabric_lfts").value(), 2);
  const int64_t v1 = Version();
  auto n = store_->retention.RetentionStep(kT0 + p.forget_after_ms + 1, p);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(store_->db.CountRows("fabric_lfts").value(), 0);
  EXPECT_GT(Version(), v1);
  EXPECT_TRUE(NodeOf(Topology(), kSw1)->lft.empty());
}

TEST_F(RoutesStoreTest, PortAddressesPlaceEveryAgentPortInTheFabric) {
  Ingest(AgentReport("a1", "host1", kT0, kHca1, 1), kT0);
  Ingest(AgentReport("a3", "host3", kT0, kHca3, 3), kT0);
  auto all = store_->topology.PortAddresses();
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all.value().size(), 2u);
  const FabricAddress& a = all.value().at(AgentPort{"host3", "mlx5_0", 1});
  EXPECT_EQ(a.node_guid, kHca3);
  EXPECT_EQ(a.port, 1);
  EXPECT_EQ(a.lid, 3u);
  auto one = store_->topology.PortAddresses(std::string("host1"));
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one.value().size(), 1u);
  EXPECT_EQ(one.value().begin()->second.node_guid, kHca1);
}

// A database of the schema before routes (9) gains the tables; its fabric
// reads back as a topology without forwarding tables.
TEST(RoutesMigration, AnOlderDatabaseReadsBackWithoutTables) {
  testsupport::ScratchDir dir("collector_routes_migration");
  auto s = testing::UpgradeFrom(dir.File("old.db"), 9,
                                "INSERT INTO fabric_nodes(guid, type, description, num_ports, lid, first_seen_at, "
                                "last_seen_at, seen_by) VALUES ('0x0000000000000200', 'Switch', 'sw1', 8, 10, 1, 1, 'h');"
                                "INSERT INTO fabric_ports(guid, port, lid, state, last_seen_at) VALUES "
                                "('0x0000000000000200', 1, 10, 'ACTIVE', 1);");
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto t = s.value()->topology.Topology();
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t.value().fabric.nodes.size(), 1u);
  EXPECT_EQ(t.value().fabric.nodes[0].lid, 10u);
  EXPECT_EQ(t.value().fabric.nodes[0].ports.at(0).state, 4);
  EXPECT_TRUE(t.value().fabric.nodes[0].lft.empty());
  EXPECT_EQ(t.value().version, 1);
}

TEST(ParseAnyGuid, TakesTheInventoryAndTheSweepSpelling) {
  uint64_t g = 0;
  ASSERT_TRUE(ParseAnyGuid("0002:c903:0001:2345", &g));
  EXPECT_EQ(g, 0x0002c90300012345u);
  ASSERT_TRUE(ParseAnyGuid("0x0002C90300012345", &g));
  EXPECT_EQ(g, 0x0002c90300012345u);
  EXPECT_FALSE(ParseAnyGuid("0002:c903", &g));
  EXPECT_FALSE(ParseAnyGuid("zz", &g));
  ASSERT_TRUE(ParseAnyGuid("2345", &g));  // a short sweep spelling
  EXPECT_EQ(g, 0x2345u);
  EXPECT_FALSE(ParseAnyGuid("", &g));
  EXPECT_FALSE(ParseAnyGuid("0x", &g));
  EXPECT_FALSE(ParseAnyGuid("0x10002c90300012345", &g));  // 17 digits
  EXPECT_FALSE(ParseAnyGuid("0x0002:c903:0001:2345", &g));
  EXPECT_FALSE(ParseAnyGuid("0x0002c90300012345 ", &g));
  ASSERT_TRUE(ParseAnyGuid("0xaBcDeF", &g));  // either case
  EXPECT_EQ(g, 0xabcdefu);
  for (const char* near : {"0x1@", "0x1`", "0x1G", "0x1g", "0x1/", "0x1:"})  // just outside 0-9, A-F, a-f
    EXPECT_FALSE(ParseAnyGuid(near, &g)) << near;
}

// Both validation paths (the DOM one and the request path's decoder) refuse a
// bad table by the field's pointer.
void ExpectRefusedAt(const json& report, const std::string& field, const std::string& problem) {
  auto e = ValidateReport(report);
  ASSERT_TRUE(e.has_value()) << field;
  EXPECT_EQ(e->field, field) << e->problem;
  EXPECT_NE(e->problem.find(problem), std::string::npos) << e->problem;
  DecodedReport d = DecodeReport(report.dump());
  EXPECT_EQ(d.problem, DecodedReport::Problem::kInvalid) << field;
  EXPECT_EQ(d.error.field, field) << d.error.problem;
}

TEST(RoutesValidate, AMalformedTableIsRefusedNamingTheEntry) {
  json r = testing::MakeReport("v1", "n", kT0);
  r["fabric"] = testing::MakeSweep("0x0000000000000200", "sw1");
  r["fabric"]["nodes"][0]["lft"] = {1, 2, 255, 0};
  EXPECT_FALSE(ValidateReport(r).has_value());
  EXPECT_EQ(DecodeReport(r.dump()).problem, DecodedReport::Problem::kNone);
  r["fabric"]["nodes"][0]["lft"] = {1, 256};
  ExpectRefusedAt(r, "/fabric/nodes/0/lft/1", "0..255");
  r["fabric"]["nodes"][0]["lft"] = {-1};
  ExpectRefusedAt(r, "/fabric/nodes/0/lft/0", "0..255");
  r["fabric"]["nodes"][0]["lft"] = {1, "2"};
  ExpectRefusedAt(r, "/fabric/nodes/0/lft/1", "0..255");
  r["fabric"]["nodes"][0]["lft"] = {1, 2.5};
  ExpectRefusedAt(r, "/fabric/nodes/0/lft/1", "0..255");
  r["fabric"]["nodes"][0]["lft"] = {{"1", 2}};
  ExpectRefusedAt(r, "/fabric/nodes/0/lft", "array");
  r["fabric"]["nodes"][0]["lft"] = std::vector<int>(0xc000 + 1, 1);
  ExpectRefusedAt(r, "/fabric/nodes/0/lft", "at most 49152");
  r["fabric"]["nodes"][0]["lft"] = std::vector<int>(0xc000, 1);
  EXPECT_FALSE(ValidateReport(r).has_value());
  r["fabric"]["nodes"][0]["type"] = "CA";
  r["fabric"]["nodes"][0]["lft"] = {1};
  ExpectRefusedAt(r, "/fabric/nodes/0/lft", "Switch");
}

// GET /api/v1/fabric/path on an in-process collector: sweeps and agents'
// reports posted as agents post them.
class FabricPathApiTest : public ::testing::Test {
 protected:
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void Post(const json& report) {
    auto r = cli_.Post("/api/v1/reports", Auth(), report.dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  // The answer's status and body.
  std::pair<int, json> Get(const std::string& query) {
    auto r = cli_.Get(("/api/v1/fabric/path?" + query).c_str(), Auth());
    if (!r) return {0, json()};
    return {r->status, json::parse(r->body, nullptr, false)};
  }
  static httplib::Headers Auth() { return {{"Authorization", std::string("Bearer ") + testing::kTestToken}}; }
  void PostFabric(const std::vector<uint8_t>& sw1 = Sw1Table()) {
    FakeSubnet s = fabric::testing::SmallSubnet(false);
    const int64_t now = NowMs();
    Post(SweepReport("sweep-" + std::to_string(++posted_), now, WithRoutes(SweepOf(s), sw1)));
    Post(AgentReport("h1-" + std::to_string(posted_), "host1", now, kHca1, 1));
    Post(AgentReport("h3-" + std::to_string(posted_), "host3", now, kHca3, 3));
  }

  testing::TestCollector c_;
  httplib::Client cli_{"127.0.0.1", c_.port()};
  int posted_ = 0;
};

TEST_F(FabricPathApiTest, TracesBetweenAgentsByNameLidAndGuid) {
  PostFabric();
  auto [status, body] = Get("src=host1&dst=host3/mlx5_0/1");
  ASSERT_EQ(status, 200) << body.dump();
  EXPECT_EQ(body["src"]["node"], "host1");
  EXPECT_EQ(body["src"]["guid"], fabric::GuidText(kHca1));
  EXPECT_EQ(body["src"]["lid"], 1);
  EXPECT_EQ(body["dst"]["guid"], fabric::GuidText(kHca3));
  EXPECT_EQ(body["dst"]["device"], "mlx5_0");
  ASSERT_EQ(body["hops"].size(), 2u) << body.dump();
  EXPECT_EQ(body["hops"][0]["description"], "sw1");
  EXPECT_EQ(body["hops"][0]["in_port"], 1);
  EXPECT_EQ(body["hops"][0]["out_port"], 3);
  EXPECT_EQ(body["hops"][1]["description"], "sw2");
  EXPECT_EQ(body["hops"][1]["out_port"], 1);
  ASSERT_EQ(body["cables"].size(), 3u);
  EXPECT_EQ(body["cables"][1]["from"]["guid"], fabric::GuidText(kSw1));
  EXPECT_EQ(body["cables"][1]["to"]["port"], 3);
  EXPECT_EQ(body["version"], c_.store().topology.Version().value());

  std::tie(status, body) = Get("src=lid:3&dst=" + fabric::GuidText(kHca1));
  ASSERT_EQ(status, 200) << body.dump();
  EXPECT_EQ(body["hops"].size(), 2u);
  EXPECT_EQ(body["dst"]["guid"], fabric::GuidText(kHca1));
  std::tie(status, body) = Get("src=" + fabric::GuidText(kHca2) + ":1&dst=lid:11");  // to switch sw2 itself
  ASSERT_EQ(status, 200) << body.dump();
  EXPECT_EQ(body["dst"]["guid"], fabric::GuidText(kSw2));
  EXPECT_EQ(body["dst"]["port"], 0);
  EXPECT_EQ(body["hops"].size(), 2u);
}

TEST_F(FabricPathApiTest, SaysWhatIsMissingOrMalformed) {
  auto [status, body] = Get("src=host1&dst=host3");
  EXPECT_EQ(status, 404);
  EXPECT_EQ(body["error"], "no fabric sweep") << body.dump();
  PostFabric();
  std::tie(status, body) = Get("src=host1");
  EXPECT_EQ(status, 400);
  EXPECT_EQ(body["detail"]["param"], "dst") << body.dump();
  std::tie(status, body) = Get("src=lid:abc&dst=host3");
  EXPECT_EQ(status, 400);
  EXPECT_EQ(body["detail"]["param"], "src") << body.dump();
  std::tie(status, body) = Get("src=a/b/c/d&dst=host3");
  EXPECT_EQ(status, 400);
  std::tie(status, body) = Get("src=nohost&dst=host3");
  EXPECT_EQ(status, 404);
  EXPECT_EQ(body["error"], "unknown source");
  EXPECT_NE(body["detail"].get<std::string>().find("nohost"), std::string::npos) << body.dump();
  std::tie(status, body) = Get("src=host1&dst=host3/mlx5_1");
  EXPECT_EQ(status, 404);
  EXPECT_EQ(body["error"], "unknown destination");
  std::tie(status, body) = Get("src=host1&dst=lid:99");
  EXPECT_EQ(status, 404);
  EXPECT_NE(body["detail"].get<std::string>().find("LID 99"), std::string::npos) << body.dump();
  std::tie(status, body) = Get("src=0x00000000000009ff&dst=host3");
  EXPECT_EQ(status, 404);
  EXPECT_NE(body["detail"].get<std::string>().find("0x00000000000009ff"), std::string::npos) << body.dump();
  // sw1 loses its route to LID 3: the answer names the switch that stops the walk.
  std::vector<uint8_t> no_route = Sw1Table();
  no_route[3] = kNoRoute;
  PostFabric(no_route);
  std::tie(status, body) = Get("src=host1&dst=host3");
  EXPECT_EQ(status, 404);
  EXPECT_EQ(body["error"], "no route");
  EXPECT_NE(body["detail"].get<std::string>().find("\"sw1\" has no route to LID 3"), std::string::npos)
      << body.dump();
}

}  // namespace
}  // namespace rdmascope::collector

namespace rdmascope::collector {
namespace {

// The diagnosis's router: each probed pair gets the cables and switches of
// its route there and back; a cable that goes away while the tables still
// send packets into it stays in the route, marked down.
TEST_F(RoutesStoreTest, DiagnosisRouterGivesEachPathItsCablesAndKeepsAGoneCableDown) {
  FakeSubnet s = fabric::testing::SmallSubnet(false);
  Ingest(SweepReport("r1", kT0, WithRoutes(SweepOf(s))), kT0);
  Ingest(AgentReport("a1", "n1", kT0, kHca1, 1), kT0);
  Ingest(AgentReport("a3", "n3", kT0, kHca3, 3), kT0);
  diagnosis::Input in;
  diagnosis::PathSummary p;
  p.src = in.names.Id("n1"), p.dst = in.names.Id("n3"), p.rail = in.names.Id("0"), p.transport = in.names.Id("ud");
  p.src_device = p.dst_device = in.names.Id("mlx5_0");
  p.sent = p.received = 10;
  in.paths.push_back(p);
  PathRouter router;
  ASSERT_TRUE(router.Refresh(*store_).ok());
  router.Resolve(&in);
  const std::string trunk = fabric::GuidText(kSw1) + "/3<->" + fabric::GuidText(kSw2) + "/3";
  auto crosses = [&](const std::string& subject) {
    for (uint32_t id : in.paths[0].Crosses())
      if (in.elements.at(id).subject == subject) return static_cast<int>(id);
    return -1;
  };
  ASSERT_GE(crosses(trunk), 0) << "the path does not cross " << trunk;
  EXPECT_GE(crosses(fabric::GuidText(kSw1)), 0);
  EXPECT_GE(crosses(fabric::GuidText(kSw2)), 0);
  EXPECT_EQ(in.paths[0].Crosses().size(), 5u);  // two host cables, the trunk, two switches
  EXPECT_FALSE(in.elements[static_cast<size_t>(crosses(trunk))].down);
  EXPECT_EQ(router.Coverage().paths_routed, 1);
  EXPECT_EQ(router.Coverage().pairs_traced, 1);
  EXPECT_EQ(router.Coverage().switch_links, 1);
  EXPECT_EQ(router.Coverage().switch_links_crossed, 1);

  s.nodes[1].links.erase(3);  // sw1[3] - sw2[3] unplugged; the tables still point at it
  s.nodes[2].links.erase(3);
  Ingest(SweepReport("r2", kT0 + 10000, WithRoutes(SweepOf(s))), kT0 + 10000);
  ASSERT_TRUE(router.Refresh(*store_).ok());
  router.Resolve(&in);
  EXPECT_EQ(router.Coverage().pairs_traced, 0) << "no table changed: the pair's route is kept";
  ASSERT_GE(crosses(trunk), 0) << "the gone trunk left the route";
  EXPECT_TRUE(in.elements[static_cast<size_t>(crosses(trunk))].down);

  // A new version is traced again: sw1 loses its route to n3 (no route, no
  // cables), then gets it back (the same five elements).
  std::vector<uint8_t> no_route = Sw1Table();
  no_route[3] = kNoRoute;
  Ingest(SweepReport("r3", kT0 + 20000, WithRoutes(SweepOf(s), no_route)), kT0 + 20000);
  ASSERT_TRUE(router.Refresh(*store_).ok());
  router.Resolve(&in);
  EXPECT_EQ(router.Coverage().pairs_traced, 1);
  EXPECT_TRUE(in.paths[0].Crosses().empty());
  EXPECT_EQ(router.Coverage().paths_unrouted, 1);
  Ingest(SweepReport("r4", kT0 + 30000, WithRoutes(SweepOf(s))), kT0 + 30000);
  ASSERT_TRUE(router.Refresh(*store_).ok());
  router.Resolve(&in);
  EXPECT_EQ(in.paths[0].Crosses().size(), 5u);
  EXPECT_GE(crosses(trunk), 0);
  EXPECT_EQ(router.Coverage().paths_routed, 1);
}

// A pass names the same pairs in another order (transports apart, sources
// interleaved), drops one and adds one: each path still gets the elements a
// fresh router gives it, and only the new pair is traced.
TEST_F(RoutesStoreTest, DiagnosisRouterFindsKeptPairsInAnyOrder) {
  FakeSubnet s = fabric::testing::SmallSubnet(false);
  Ingest(SweepReport("r1", kT0, WithRoutes(SweepOf(s))), kT0);
  Ingest(AgentReport("a1", "n1", kT0, kHca1, 1), kT0);
  Ingest(AgentReport("a2", "n2", kT0, kHca2, 2), kT0);
  Ingest(AgentReport("a3", "n3", kT0, kHca3, 3), kT0);
  auto input = [](const std::vector<std::tuple<std::string, std::string, std::string>>& order) {
    diagnosis::Input in;
    for (const auto& [src, dst, transport] : order) {
      diagnosis::PathSummary p;
      p.src = in.names.Id(src), p.dst = in.names.Id(dst), p.rail = in.names.Id("0");
      p.transport = in.names.Id(transport);
      p.src_device = p.dst_device = in.names.Id("mlx5_0");
      p.sent = p.received = 10;
      in.paths.push_back(p);
    }
    return in;
  };
  diagnosis::Input first = input({{"n1", "n3", "ud"}, {"n1", "n3", "rc"}, {"n1", "n2", "ud"}, {"n1", "n2", "rc"},
                                  {"n2", "n3", "ud"}, {"n3", "n1", "ud"}, {"n3", "n2", "ud"}});
  diagnosis::Input second = input({{"n3", "n1", "ud"}, {"n1", "n2", "ud"}, {"n1", "n3", "ud"}, {"n2", "n1", "rc"},
                                   {"n1", "n2", "rc"}, {"n1", "n3", "rc"}, {"n2", "n3", "ud"}, {"n3", "n1", "rc"}});
  PathRouter router;
  ASSERT_TRUE(router.Refresh(*store_).ok());
  router.Resolve(&first);
  EXPECT_EQ(router.Coverage().pairs_traced, 5);
  EXPECT_EQ(router.Coverage().paths_routed, 7);
  router.Resolve(&second);
  EXPECT_EQ(router.Coverage().pairs_traced, 1) << "only n2 -> n1 is new";
  EXPECT_EQ(router.Coverage().paths_routed, 8);
  diagnosis::Input fresh = second;
  PathRouter again;
  ASSERT_TRUE(again.Refresh(*store_).ok());
  again.Resolve(&fresh);
  for (size_t i = 0; i < second.paths.size(); ++i) {
    EXPECT_FALSE(second.paths[i].Crosses().empty()) << "path " << i;
    EXPECT_EQ(second.paths[i].Crosses(), fresh.paths[i].Crosses()) << "path " << i;
  }
  EXPECT_NE(second.paths[0].Crosses(), second.paths[1].Crosses());
}

}  // namespace
}  // namespace rdmascope::collector
