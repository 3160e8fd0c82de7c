// Report builder: every field of the report format v1, the inventory with
// counters, probe pass-through, and unique, well-formed report ids.
#include "agent/daemon/report_builder.h"

#include <gtest/gtest.h>

#include <set>

#include "agent/node/inventory.h"
#include "common/model_json.h"

namespace rdmascope::agent {
namespace {

const std::string kFixtures = RDMASCOPE_FIXTURES_DIR;

Inventory Fixture(const std::string& name) {
  InventoryOptions o;
  o.read_counters = true;
  return ReadInventory(SysfsReader(kFixtures + "/sys/" + name), o);
}

nlohmann::json SampleProbe() {
  return nlohmann::json::parse(R"({
    "target": "node-b", "transport": "rc",
    "local": {"device": "rxe0", "port": 1, "gid_index": 1},
    "remote": {"host": "192.168.77.2", "control_port": 18515, "device": "rxe1", "port": 1},
    "interval_start_ms": 1699999990000, "interval_end_ms": 1700000000000,
    "summary": {"sent": 100, "received": 100, "lost": 0, "loss_ratio": 0.0,
                "rtt_us": null, "network_us": null, "responder_us": null, "read_us": null,
                "errors_by_status": {}},
    "errors": []})");
}

TEST(ReportBuilder, TopLevelFieldsPerContract) {
  ReportHeader h;
  h.node = "node-a";
  h.interval_ms = 10000;
  h.labels = {{"group", "rack1"}};
  Inventory inv = Fixture("mlx5_roce");
  nlohmann::json r = BuildReport(h, "node-a-1700000000000-0000abcd-000042", 1700000000000, inv, {SampleProbe()});

  EXPECT_EQ(r["schema_version"], 1);
  EXPECT_EQ(r["report_id"], "node-a-1700000000000-0000abcd-000042");
  EXPECT_EQ(r["node"], "node-a");
  EXPECT_EQ(r["agent_version"], kAgentVersion);
  EXPECT_FALSE(std::string(kAgentVersion).empty());
  EXPECT_EQ(r["generated_at_ms"], 1700000000000);
  EXPECT_TRUE(r["generated_at_ms"].is_number_integer());
  EXPECT_EQ(r["interval_s"], 10);
  EXPECT_TRUE(r["interval_s"].is_number_integer());
  EXPECT_EQ(r["labels"], nlohmann::json({{"group", "rack1"}}));
  ASSERT_TRUE(r["inventory"].is_object());
  EXPECT_TRUE(r["inventory"]["devices"].is_array());
  EXPECT_TRUE(r["inventory"]["warnings"].is_array());
  ASSERT_EQ(r["probes"].size(), 1u);
  EXPECT_EQ(r["probes"][0], SampleProbe());
  // Nothing beyond the contract's keys.
  std::set<std::string> keys;
  for (auto it = r.begin(); it != r.end(); ++it) keys.insert(it.key());
  EXPECT_EQ(keys, (std::set<std::string>{"schema_version", "report_id", "node", "agent_version", "generated_at_ms",
                                         "interval_s", "boot_id", "labels", "inventory", "probes"}));
  EXPECT_TRUE(r["boot_id"].is_null());  // unknown unless the header has one
  // Rails and spool drops when there are any.
  h.boot_id = "0b5e1d2c-1111-4222-8333-944445555666";
  h.rails = nlohmann::json::array({{{"name", "r0"}, {"device", "mlx5_0"}, {"port", 1}, {"state", "ACTIVE"}}});
  h.spool_dropped = 3;
  nlohmann::json r2 = BuildReport(h, "node-a-1700000000000-0000abcd-000043", 1700000000000, inv, {});
  EXPECT_EQ(r2["boot_id"], h.boot_id);
  EXPECT_EQ(r2["rails"][0]["name"], "r0");
  EXPECT_EQ(r2["spool_dropped"], 3);
}

TEST(ReportBuilder, EmptyLabelsAndProbesAreEmptyContainers) {
  ReportHeader h;
  h.node = "n";
  h.interval_ms = 2500;
  nlohmann::json r = BuildReport(h, "id", 1, Inventory{}, {});
  EXPECT_EQ(r["labels"], nlohmann::json::object());
  EXPECT_EQ(r["probes"], nlohmann::json::array());
  EXPECT_EQ(r["inventory"]["devices"], nlohmann::json::array());
  EXPECT_DOUBLE_EQ(r["interval_s"].get<double>(), 2.5);
}

TEST(ReportBuilder, DevicesArePortsJsonPlusCounters) {
  for (const std::string fixture : {"mlx5_roce", "mlx5_ib", "mlx4_nopma", "rxe"}) {
    Inventory inv = Fixture(fixture);
    ASSERT_FALSE(inv.devices.empty()) << fixture;
    nlohmann::json got = ReportInventoryJson(inv);
    nlohmann::json plain = InventoryToJson(inv);
    nlohmann::json counters = InventoryCountersToJson(inv);
    ASSERT_EQ(got["devices"].size(), plain["devices"].size());
    EXPECT_EQ(got["warnings"], plain["warnings"]);
    for (size_t d = 0; d < got["devices"].size(); ++d) {
      nlohmann::json dev = got["devices"][d];
      // The device's instance identity, for the collector's counter rules.
      ASSERT_TRUE(inv.devices[d].instance) << fixture;
      EXPECT_EQ(dev["instance"], *inv.devices[d].instance) << fixture;
      dev.erase("instance");
      for (size_t p = 0; p < dev["ports"].size(); ++p) {
        nlohmann::json& port = dev["ports"][p];
        EXPECT_EQ(port["counters"], counters["devices"][d]["ports"][p]["counters"]) << fixture;
        EXPECT_EQ(port["hw_counters"], counters["devices"][d]["ports"][p]["hw_counters"]) << fixture;
        port.erase("counters");
        port.erase("hw_counters");
      }
      EXPECT_EQ(dev, plain["devices"][d]) << fixture;  // otherwise exactly what `rdmactl ports --json` prints
    }
  }
}

TEST(ReportBuilder, AbsentCounterIsNullNotZero) {
  Inventory inv;
  Device d;
  d.name = "mlx4_0";
  Port p;
  p.number = 1;
  p.counters["symbol_error"] = std::nullopt;
  p.counters["link_downed"] = 0;
  d.ports.push_back(p);
  inv.devices.push_back(d);
  nlohmann::json j = ReportInventoryJson(inv);
  EXPECT_TRUE(j["devices"][0]["ports"][0]["counters"]["symbol_error"].is_null());
  EXPECT_EQ(j["devices"][0]["ports"][0]["counters"]["link_downed"], 0);
  ASSERT_TRUE(j["devices"][0].contains("instance"));
  EXPECT_TRUE(j["devices"][0]["instance"].is_null()) << "an unknown instance is null";
}

TEST(ReportBuilder, NonObjectProbeIsLeftOutAndNamed) {
  ReportHeader h;
  h.node = "n";
  nlohmann::json r = BuildReport(h, "id", 1, Inventory{}, {SampleProbe(), nlohmann::json(42), SampleProbe()});
  EXPECT_EQ(r["probes"].size(), 2u);
  ASSERT_EQ(r["inventory"]["warnings"].size(), 1u);
  EXPECT_NE(r["inventory"]["warnings"][0].get<std::string>().find("probe result 1"), std::string::npos);
}

TEST(ReportBuilder, WarningsStayWithinTheCollectorsBounds) {
  ReportHeader h;
  h.node = "n";
  Inventory inv;
  for (int i = 0; i < 300; ++i) inv.warnings.push_back("w" + std::to_string(i));
  inv.warnings[0] = std::string(5000, 'x');
  nlohmann::json r = BuildReport(h, "id", 1, inv, {nlohmann::json("not an object")});
  const nlohmann::json& w = r["inventory"]["warnings"];
  ASSERT_EQ(w.size(), kMaxReportWarnings);
  EXPECT_LE(w[0].get<std::string>().size(), kMaxWarningChars);
  EXPECT_EQ(w[1], "w1");
  EXPECT_EQ(w.back(), "46 more warnings left out");  // 300 + 1 probe warning - 255 kept
}

TEST(ReportBuilder, SerializeNeverThrowsOnBadUtf8) {
  ReportHeader h;
  h.node = "n";
  Inventory inv;
  inv.warnings.push_back(std::string("bad \xff\xfe bytes"));
  std::string text;
  EXPECT_NO_THROW(text = SerializeReport(BuildReport(h, "id", 1, inv, {})));
  EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded());
}

TEST(ReportIds, UniqueAndWellFormed) {
  ReportIdGenerator a("node-a", 0x1234abcd);
  EXPECT_EQ(a.Next(1700000000000), "node-a-1700000000000-1234abcd-000001");
  EXPECT_EQ(a.Next(1700000000000), "node-a-1700000000000-1234abcd-000002");

  std::set<std::string> ids;
  ReportIdGenerator g1("node-a");
  ReportIdGenerator g2("node-a");  // a restart: same node, same clock, another random part
  for (int i = 0; i < 1000; ++i) {
    std::string x = g1.Next(1700000000000);
    std::string y = g2.Next(1700000000000);
    EXPECT_TRUE(IsValidReportId(x)) << x;
    EXPECT_TRUE(ids.insert(x).second) << x;
    EXPECT_TRUE(ids.insert(y).second) << y;
  }
}

TEST(ReportIds, LongNodeIsShortenedToFit) {
  ReportIdGenerator g(std::string(128, 'n'), 1);
  std::string id = g.Next(1700000000000);
  EXPECT_EQ(id.size(), 128u);
  EXPECT_TRUE(IsValidReportId(id));
  EXPECT_NE(id.find("-1700000000000-00000001-000001"), std::string::npos);
}

TEST(ReportIds, Validation) {
  EXPECT_TRUE(IsValidReportId("a.b_c:d-1"));
  EXPECT_FALSE(IsValidReportId(""));
  EXPECT_FALSE(IsValidReportId(std::string(129, 'a')));
  EXPECT_FALSE(IsValidReportId("a b"));
  EXPECT_FALSE(IsValidReportId("a/b"));
}

}  // namespace
}  // namespace rdmascope::agent
