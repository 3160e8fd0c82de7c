// GET /api/v1/ports paged on the server, against an in-process collector:
// pages read while reports arrive hold every row that existed before exactly
// once, in order; limits are enforced; totals match each filter (checked
// against the unpaged list of the same rows); cursors are opaque and checked.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "collector/readmodel/port_cursor.h"
#include "tests/collector/test_server.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::kTestToken;
using testing::MakeReport;
using testing::TestCollector;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// node-NN: two devices (mlx5_0, mlx5_1) of two ports each; the state and
// firmware vary with the node and port so every sort has ties to break.
json FleetReport(const std::string& id, int n, int64_t at) {
  char name[16];
  std::snprintf(name, sizeof name, "node-%02d", n);
  json r = MakeReport(id, name, at);
  const json port0 = r["inventory"]["devices"][0]["ports"][0];
  json devices = json::array();
  for (int d = 0; d < 2; ++d) {
    json dev = r["inventory"]["devices"][0];
    dev["name"] = "mlx5_" + std::to_string(d);
    dev["fw_ver"] = n % 3 == 0 ? "20.39.1002" : "16.35.2000";
    dev["ports"] = json::array();
    for (int p = 1; p <= 2; ++p) {
      json port = port0;
      port["port"] = p;
      const bool down = (n + d + p) % 5 == 0;
      port["state"] = {{"number", down ? 1 : 4}, {"name", down ? "DOWN" : "ACTIVE"}};
      port["gids"][0]["gid"] = "fe80:0000:0000:0000:0002:c903:00" + std::string(name + 5) + ":000" + std::to_string(2 * d + p);
      dev["ports"].push_back(port);
    }
    devices.push_back(dev);
  }
  r["inventory"]["devices"] = devices;
  r["labels"] = n % 4 == 0 ? json::object() : json{{"group", n % 2 ? "rack-odd" : "rack-even"}};
  return r;
}

using Row = std::tuple<std::string, std::string, int64_t>;  // node, device, port

Row RowOf(const json& p) { return {p["node"], p["device"], p["port"]}; }

class PortsPageTest : public ::testing::Test {
 protected:
  static constexpr int kNodes = 30;  // 120 ports
  TestCollector c_;
  httplib::Client cli_{"127.0.0.1", c_.port()};
  int reports_ = 0;

  void SetUp() override {
    for (int n = 0; n < kNodes; ++n) Post(FleetReport("r-" + std::to_string(reports_++), n, NowMs()));
  }
  void Post(const json& report) {
    auto r = cli_.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kTestToken}}, report.dump(),
                       "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  json Get(const std::string& path, int status = 200) {
    auto r = cli_.Get(path);
    EXPECT_TRUE(r) << path;
    if (!r) return json();
    EXPECT_EQ(r->status, status) << path << ": " << r->body;
    return json::parse(r->body, nullptr, false);
  }
  // Every port of the unpaged list (the store's), the oracle of the filters.
  json All() { return Get("/api/v1/ports")["ports"]; }
};

// The sort key of a row as the API documents it, for checking the order.
std::tuple<int64_t, std::string, std::string, std::string, int64_t> KeyOf(const json& p, const std::string& sort) {
  const int64_t state = sort == "state" && p["state"].is_number() ? p["state"].get<int64_t>() : 0;
  std::string primary;
  if (sort == "device") primary = p["device"];
  if (sort == "firmware" && p["fw"].is_string()) primary = p["fw"];
  return {state, primary, p["node"], p["device"], p["port"]};
}

TEST_F(PortsPageTest, PagesHoldEveryRowOnceWhileReportsArrive) {
  const json before = All();
  ASSERT_EQ(before.size(), 4u * kNodes);
  std::set<Row> existed;
  for (const json& p : before) existed.insert(RowOf(p));
  int next_node = kNodes;
  for (const std::string sort : {"node", "device", "state", "firmware"}) {
    for (const std::string order : {"asc", "desc"}) {
      SCOPED_TRACE(sort + " " + order);
      std::set<Row> seen;
      std::vector<json> rows;
      std::string path = "/api/v1/ports?limit=7&sort=" + sort + "&order=" + order;
      bool ended = false;
      for (int page = 0; page < 100 && !ended; ++page) {
        json body = Get(path);
        ASSERT_TRUE(body.is_object());
        for (const json& p : body["ports"]) {
          EXPECT_TRUE(seen.insert(RowOf(p)).second) << "twice: " << p.dump();
          rows.push_back(p);
        }
        ended = body["next_cursor"].is_null();
        if (ended) break;
        EXPECT_EQ(body["ports"].size(), 7u);
        EXPECT_TRUE(body["truncated"].get<bool>());
        // Between pages: a node re-reports (same keys, newer times); on the
        // first pages also a new node, and one whose name sorts first (last
        // when descending), so rows land on both sides of the cursor.
        Post(FleetReport("r-" + std::to_string(reports_++), page % kNodes, NowMs()));
        if (page < 4) {
          Post(FleetReport("r-" + std::to_string(reports_++), next_node++, NowMs()));
          json first = FleetReport("r-" + std::to_string(reports_++), 0, NowMs());
          first["node"] = "aaa-" + sort + order + std::to_string(page);
          Post(first);
        }
        path = "/api/v1/ports?limit=7&cursor=" + body["next_cursor"].get<std::string>();
      }
      EXPECT_TRUE(ended) << "the pages did not end";
      for (const Row& r : existed) EXPECT_EQ(seen.count(r), 1u) << "missing: " << std::get<0>(r) << " "
                                                               << std::get<1>(r) << "/" << std::get<2>(r);
      for (size_t i = 1; i < rows.size(); ++i) {
        auto a = KeyOf(rows[i - 1], sort), b = KeyOf(rows[i], sort);
        EXPECT_TRUE(order == "asc" ? a < b : b < a) << rows[i - 1].dump() << " then " << rows[i].dump();
      }
    }
  }
}

TEST_F(PortsPageTest, LimitsAreEnforced) {
  json page = Get("/api/v1/ports?sort=node");
  EXPECT_EQ(page["limit"], 100);  // the default
  EXPECT_EQ(page["ports"].size(), 100u);
  EXPECT_EQ(page["total"], 4 * kNodes);
  EXPECT_TRUE(page["next_cursor"].is_string());
  json rest = Get("/api/v1/ports?cursor=" + page["next_cursor"].get<std::string>());
  EXPECT_EQ(rest["ports"].size(), 4u * kNodes - 100);
  EXPECT_TRUE(rest["next_cursor"].is_null());
  EXPECT_FALSE(rest["truncated"].get<bool>());
  EXPECT_EQ(Get("/api/v1/ports?sort=node&limit=1000")["ports"].size(), 4u * kNodes);  // the maximum

  json over = Get("/api/v1/ports?sort=node&limit=1001", 400);
  EXPECT_EQ(over["error"], "invalid query");
  EXPECT_EQ(over["detail"]["param"], "limit");
  EXPECT_NE(over["detail"]["problem"].get<std::string>().find("at most 1000"), std::string::npos) << over.dump();
  EXPECT_NE(over["detail"]["problem"].get<std::string>().find("next_cursor"), std::string::npos) << over.dump();
  struct Bad {
    const char* query;
    const char* param;
  };
  const std::string made_for_state = EncodePortCursor(PortCursor{PortSort::kState, false, PortKey{4, "", "node-01", "mlx5_0", 1}});
  for (const Bad& b : {Bad{"sort=node&limit=0", "limit"}, Bad{"sort=node&limit=x", "limit"},
                       Bad{"sort=lid", "sort"}, Bad{"sort=node&order=up", "order"}, Bad{"cursor=%21%21", "cursor"},
                       Bad{"cursor=AAAA", "cursor"}, Bad{"state=%21", "state"}}) {
    json r = Get(std::string("/api/v1/ports?") + b.query, 400);
    EXPECT_EQ(r["detail"]["param"], b.param) << b.query;
  }
  json mismatch = Get("/api/v1/ports?sort=node&cursor=" + made_for_state, 400);
  EXPECT_NE(mismatch["detail"]["problem"].get<std::string>().find("sort=state"), std::string::npos) << mismatch.dump();
  // A cursor alone carries its sort: the page goes on in state order.
  json after = Get("/api/v1/ports?cursor=" + made_for_state);
  EXPECT_EQ(after["sort"], "state");

  // The unpaged list of before is unchanged for its callers.
  json old = Get("/api/v1/ports?node=node-01");
  EXPECT_EQ(old["ports"].size(), 4u);
  EXPECT_EQ(old["truncated"], false);
  EXPECT_FALSE(old.contains("total"));
  EXPECT_EQ(Get("/api/v1/ports?limit=100001", 400)["detail"]["param"], "limit");
}

TEST_F(PortsPageTest, TotalsMatchEachFilter) {
  const json all = All();
  auto count = [&](const std::function<bool(const json&)>& keep) {
    int64_t n = 0;
    for (const json& p : all) n += keep(p) ? 1 : 0;
    return n;
  };
  auto has = [](const json& v, const std::string& needle) {
    return v.is_string() && v.get<std::string>().find(needle) != std::string::npos;
  };
  auto group_of = [](const json& p) {
    const int n = std::stoi(p["node"].get<std::string>().substr(5));
    return n % 4 == 0 ? std::string() : std::string(n % 2 ? "rack-odd" : "rack-even");
  };
  struct Case {
    std::string query;  // with sort=node: node alone keeps the unpaged list, where it is exact
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"node=node-1", count([&](const json& p) { return has(p["node"], "node-1"); })},
      {"node=NODE-2", count([&](const json& p) { return has(p["node"], "node-2"); })},
      {"device=mlx5_1", count([&](const json& p) { return p["device"] == "mlx5_1"; })},
      {"state=DOWN", count([](const json& p) { return p["state"] == 1; })},
      {"state=active", count([](const json& p) { return p["state"] == 4; })},
      {"state=4", count([](const json& p) { return p["state"] == 4; })},
      {"state=%21ACTIVE", count([](const json& p) { return p["state"] != 4; })},
      {"gid=:0003", count([&](const json& p) { return has(p["gids"][0]["gid"], ":0003"); })},
      {"firmware=20.39", count([&](const json& p) { return has(p["fw"], "20.39"); })},
      {"firmware=16.35.2000", count([&](const json& p) { return p["fw"] == "16.35.2000"; })},
      {"group=rack-odd", count([&](const json& p) { return group_of(p) == "rack-odd"; })},
      {"group=rack", 0},  // exact, not a substring
      {"q=rack-even", count([&](const json& p) { return group_of(p) == "rack-even"; })},
      {"state=DOWN&firmware=20.39",
       count([&](const json& p) { return p["state"] == 1 && has(p["fw"], "20.39"); })},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    EXPECT_GT(c.want + (c.query == "group=rack" ? 1 : 0), 0) << "the fleet should have such rows";
    json page = Get("/api/v1/ports?sort=node&limit=5&" + c.query);
    EXPECT_EQ(page["total"], c.want);
    // Following the cursors yields exactly `total` rows, each matching.
    int64_t rows = 0;
    for (;;) {
      rows += static_cast<int64_t>(page["ports"].size());
      if (page["next_cursor"].is_null()) break;
      page = Get("/api/v1/ports?limit=5&" + c.query + "&cursor=" + page["next_cursor"].get<std::string>());
      EXPECT_EQ(page["total"], c.want);
    }
    EXPECT_EQ(rows, c.want);
  }
  // Each row carries its group and its node's age.
  json one = Get("/api/v1/ports?sort=node&node=node-03&limit=1");
  ASSERT_EQ(one["ports"].size(), 1u);
  EXPECT_EQ(one["ports"][0]["group"], "rack-odd");
  EXPECT_EQ(one["ports"][0]["fw"], "20.39.1002");
  EXPECT_EQ(one["ports"][0]["node_stale"], false);
  EXPECT_TRUE(one["ports"][0]["node_last_report_at_ms"].is_number());
}

TEST(PortCursorTest, DecodesWhatItEncodesAndNothingElse) {
  const PortCursor c{PortSort::kFirmware, true, PortKey{0, "20.39.1002", "node-ü/\"x\"", "mlx5_0", 2}};
  auto back = DecodePortCursor(EncodePortCursor(c));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value().sort, PortSort::kFirmware);
  EXPECT_TRUE(back.value().desc);
  EXPECT_EQ(back.value().key.primary, "20.39.1002");
  EXPECT_EQ(back.value().key.node, "node-ü/\"x\"");
  EXPECT_EQ(back.value().key.port, 2);
  for (char ch : EncodePortCursor(c))
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') << ch;
  for (const std::string bad : {"", "!!", "AAAA", "W10", "WzEsIm5vZGUiXQ"})
    EXPECT_FALSE(DecodePortCursor(bad).ok()) << bad;
}

}  // namespace
}  // namespace rdmascope::collector
