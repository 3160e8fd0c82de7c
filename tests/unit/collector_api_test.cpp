// HTTP API against an in-process collector on loopback: status codes, error
// bodies naming the field, and what ends up in SQLite after each request.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <fstream>
#include <map>
#include <vector>

#include "tests/collector/test_server.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::kTestToken;
using testing::MakeProbe;
using testing::MakeReport;
using testing::TestCollector;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

httplib::Headers Auth(const std::string& token = kTestToken) { return {{"Authorization", "Bearer " + token}}; }

json Body(const httplib::Result& r) {
  if (!r) return json();
  return json::parse(r->body, nullptr, false);
}

class ApiTest : public ::testing::Test {
 protected:
  static ApiOptions Options() {
    ApiOptions o;
    o.max_body_bytes = 64 * 1024;
    return o;
  }
  TestCollector c_{Options()};
  httplib::Client cli_{"127.0.0.1", c_.port()};
  httplib::Result Post(const json& report, const httplib::Headers& h = Auth()) {
    return cli_.Post("/api/v1/reports", h, report.dump(), "application/json");
  }
};

TEST_F(ApiTest, ProbeRollupsAnswerBeyondTheRawSummaries) {
  const int64_t now = NowMs();
  const int64_t hour = now / 3600000 * 3600000 - 2 * 3600000;  // two hours ago, a whole hour
  for (int i = 0; i < 6; ++i) {
    const int64_t end = hour + 60000 + 10000 * i;  // one minute of intervals
    json r = MakeReport("old-" + std::to_string(i), "node-a", now);
    r["probes"].push_back(MakeProbe("node-b", end, i == 0 ? 3 : 0, 100, "rc", 50.0 + i));
    ASSERT_EQ(Post(r)->status, 200);
  }
  RetentionPolicy policy;
  for (auto n = c_.store().rollups.RollupStep(now, policy); n.ok() && n.value() > 0; n = c_.store().rollups.RollupStep(now, policy)) {
  }
  const std::string range = "&since=" + std::to_string(hour - 1) + "&until=" + std::to_string(now);
  auto minute = Body(cli_.Get(("/api/v1/probes/rollup?src=node-a" + range).c_str()));
  EXPECT_EQ(minute["resolution"], "minute");
  ASSERT_EQ(minute["rollups"].size(), 1u) << minute.dump();
  const json& m = minute["rollups"][0];
  EXPECT_EQ(m["start_ms"], hour + 60000);
  EXPECT_EQ(m["intervals"], 6);
  EXPECT_EQ(m["sent"], 600);
  EXPECT_EQ(m["error_count"], 3);
  EXPECT_DOUBLE_EQ(m["rtt_p50_mean_us"].get<double>(), 30.2);
  EXPECT_DOUBLE_EQ(m["rtt_p99_max_us"].get<double>(), 55.0);
  auto hourly = Body(cli_.Get(("/api/v1/probes/rollup?resolution=hour&dst=node-b" + range).c_str()));
  ASSERT_EQ(hourly["rollups"].size(), 1u) << hourly.dump();
  EXPECT_EQ(hourly["rollups"][0]["start_ms"], hour);
  EXPECT_EQ(hourly["rollups"][0]["intervals"], 6);
  EXPECT_EQ(Body(cli_.Get(("/api/v1/probes/rollup?src=node-z" + range).c_str()))["rollups"].size(), 0u);
  auto bad = cli_.Get("/api/v1/probes/rollup?resolution=second");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(Body(bad)["detail"]["param"], "resolution");
}

TEST_F(ApiTest, StoresAReport) {
  json r = MakeReport("a-1", "node-a", NowMs());
  r["probes"].push_back(MakeProbe("node-b", NowMs()));
  auto res = Post(r);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(Body(res)["stored"], true);
  EXPECT_EQ(c_.Rows("reports"), 1);
  EXPECT_EQ(c_.Rows("probe_summaries"), 1);
}

TEST_F(ApiTest, MissingOrWrongTokenIs401AndStoresNothing) {
  json r = MakeReport("a-1", "node-a", NowMs());
  auto none = Post(r, {});
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(Body(none)["error"], "unauthorized");
  auto wrong = Post(r, Auth("not-the-token"));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto basic = Post(r, {{"Authorization", std::string("Basic ") + kTestToken}});
  ASSERT_TRUE(basic);
  EXPECT_EQ(basic->status, 401);
  EXPECT_EQ(c_.Rows("reports"), 0);
  EXPECT_EQ(c_.Rows("nodes"), 0);
}

TEST_F(ApiTest, BodyOverCapIs413AndStoresNothing) {
  json r = MakeReport("a-big", "node-a", NowMs());
  r["agent_version"] = "0.1.0";
  r["padding"] = std::string(80 * 1024, 'x');  // over the 64 KiB cap of this test
  auto res = Post(r);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(Body(res)["error"], "report too large");
  EXPECT_EQ(c_.Rows("reports"), 0);
}

TEST_F(ApiTest, ChunkedBodyIs411) {
  const std::string big = json{{"padding", std::string(200 * 1024, 'y')}}.dump();
  httplib::Client cli("127.0.0.1", c_.port());
  auto res = cli.Post(
      "/api/v1/reports", Auth(),
      [&big](size_t offset, httplib::DataSink& sink) {
        if (offset < big.size()) {
          size_t n = std::min<size_t>(16 * 1024, big.size() - offset);
          sink.write(big.data() + offset, n);
        } else {
          sink.done();
        }
        return true;
      },
      "application/json");
  // Refused on the header (no chunked bodies); the server may close the
  // connection before the client has sent everything: when it answered, 411.
  if (res) {
    EXPECT_EQ(res->status, 411);
  }
  EXPECT_EQ(c_.Rows("reports"), 0);
}

TEST_F(ApiTest, CompressedBodyIs415) {
  httplib::Headers h = Auth();
  h.emplace("Content-Encoding", "gzip");
  auto res = cli_.Post("/api/v1/reports", h, std::string(100, 'z'), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 415);
  EXPECT_EQ(Body(res)["error"], "unsupported content encoding");
  EXPECT_EQ(c_.Rows("reports"), 0);
}

TEST_F(ApiTest, InvalidJsonIs400) {
  auto res = cli_.Post("/api/v1/reports", Auth(), "{\"schema_version\": 1,", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(Body(res)["error"], "invalid JSON");
  EXPECT_EQ(c_.Rows("reports"), 0);
}

TEST_F(ApiTest, SchemaViolationIs400NamingTheField) {
  json r = MakeReport("a-1", "node-a", NowMs());
  r["probes"].push_back(MakeProbe("node-b", NowMs()));
  r["probes"][0]["summary"]["sent"] = -5;
  auto res = Post(r);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  json b = Body(res);
  EXPECT_EQ(b["error"], "invalid report");
  EXPECT_EQ(b["detail"]["field"], "/probes/0/summary/sent");
  EXPECT_EQ(b["detail"]["problem"], "expected a non-negative integer");
  EXPECT_EQ(c_.Rows("reports"), 0);
  EXPECT_EQ(c_.Rows("probe_summaries"), 0);
}

TEST_F(ApiTest, DuplicateIsAcknowledgedAndStoredOnce) {
  json r = MakeReport("a-1", "node-a", NowMs());
  r["probes"].push_back(MakeProbe("node-b", NowMs(), 1));
  auto first = Post(r);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(c_.Rows("reports"), 1);
  EXPECT_EQ(c_.Rows("probe_summaries"), 1);
  EXPECT_EQ(c_.Rows("wc_errors"), 1);
  auto second = Post(r);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200);
  EXPECT_EQ(Body(second)["duplicate"], true);
  EXPECT_EQ(c_.Rows("reports"), 1);
  EXPECT_EQ(c_.Rows("probe_summaries"), 1);
  EXPECT_EQ(c_.Rows("wc_errors"), 1);
}

TEST_F(ApiTest, GetEndpoints) {
  const int64_t now = NowMs();
  json r = MakeReport("a-1", "node-a", now, /*state=*/1);
  r["probes"].push_back(MakeProbe("node-b", now, 2));
  ASSERT_EQ(Post(r)->status, 200);
  ASSERT_EQ(Post(MakeReport("b-1", "node-b", now))->status, 200);

  auto nodes = Body(cli_.Get("/api/v1/nodes"));
  ASSERT_EQ(nodes["nodes"].size(), 2u);
  EXPECT_EQ(nodes["nodes"][0]["name"], "node-a");
  EXPECT_EQ(nodes["nodes"][0]["ports_not_active"], 1);

  auto node = cli_.Get("/api/v1/nodes/node-a");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->status, 200);
  EXPECT_EQ(Body(node)["ports"].size(), 1u);
  auto missing = cli_.Get("/api/v1/nodes/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(Body(missing)["error"], "unknown node");

  EXPECT_EQ(Body(cli_.Get("/api/v1/ports?node=node-b"))["ports"].size(), 1u);
  auto counters = Body(cli_.Get(("/api/v1/counters?node=node-a&since=" + std::to_string(now - 1000)).c_str()));
  EXPECT_EQ(counters["samples"].size(), 8u);
  auto probes = Body(cli_.Get("/api/v1/probes?src=node-a&dst=node-b&since=0"));
  ASSERT_EQ(probes["probes"].size(), 1u);
  EXPECT_EQ(probes["probes"][0]["error_count"], 2);
  EXPECT_EQ(Body(cli_.Get("/api/v1/probes?src=node-a&since=0&until=1"))["probes"].size(), 0u);
  auto worst = Body(cli_.Get("/api/v1/probes/worst?limit=5"));
  EXPECT_EQ(worst["pairs"].size(), 1u);

  auto events = Body(cli_.Get("/api/v1/events?open=1"));
  ASSERT_EQ(events["events"].size(), 2u);  // the port and the WC error
  auto wc = Body(cli_.Get("/api/v1/events?open=1&kind=wc_error"));
  ASSERT_EQ(wc["events"].size(), 1u);
  EXPECT_EQ(wc["events"][0]["status"], "RETRY_EXC_ERR");

  auto pl = Body(cli_.Get("/api/v1/pinglist?node=node-a"));
  ASSERT_EQ(pl["targets"].size(), 1u);
  EXPECT_EQ(pl["targets"][0]["node"], "node-b");

  auto health = cli_.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

// rates=1: every sample with its per-second rate by the counter rules (wrap,
// reset on a new boot id), word counters in bytes; without it, no rate fields.
TEST_F(ApiTest, CounterRatesOnRequest) {
  const int64_t now = NowMs();
  struct Step {
    int64_t at;
    const char* boot;
    json counters;
    json hw_counters;
  };
  const Step steps[] = {
      {now - 40000, "b1", {{"port_xmit_wait", 4294967290ull}, {"port_xmit_data", 100}, {"VL15_dropped", 1}},
       {{"rcvd_pkts", 1000}}},
      {now - 30000, "b1", {{"port_xmit_wait", 5}, {"port_xmit_data", 1100}, {"VL15_dropped", nullptr}},
       {{"rcvd_pkts", 1300}}},
      {now - 20000, "b2", {{"port_xmit_wait", 5}, {"port_xmit_data", 1100}, {"VL15_dropped", 2}},
       {{"rcvd_pkts", 50}}},
  };
  int i = 0;
  for (const Step& s : steps) {
    json r = MakeReport("rate-" + std::to_string(i++), "node-a", s.at);
    r["boot_id"] = s.boot;
    json& port = r["inventory"]["devices"][0]["ports"][0];
    port["counters"] = s.counters;
    port["hw_counters"] = s.hw_counters;
    ASSERT_EQ(Post(r)->status, 200);
  }
  const std::string query = "/api/v1/counters?node=node-a&since=" + std::to_string(now - 60000);
  auto plain = Body(cli_.Get(query.c_str()));
  ASSERT_EQ(plain["samples"].size(), 12u) << plain.dump();
  for (const json& s : plain["samples"]) {
    EXPECT_FALSE(s.contains("rate")) << s.dump();
    EXPECT_FALSE(s.contains("boot_id")) << s.dump();
  }

  auto rated = Body(cli_.Get((query + "&rates=1").c_str()));
  ASSERT_EQ(rated["samples"].size(), 12u) << rated.dump();
  std::map<std::string, std::vector<json>> rates, units;  // name -> per report
  for (const json& s : rated["samples"]) {
    rates[s["name"].get<std::string>()].push_back(s["rate"]);
    units[s["name"].get<std::string>()].push_back(s["rate_unit"]);
  }
  // 32-bit wrap: 11 in 10 s; then a new boot: all 5 are new.
  EXPECT_EQ(json(rates["port_xmit_wait"]), json::parse("[null, 1.1, 0.5]"));
  // 1000 words = 4000 bytes in 10 s; then a new boot: 1100 words.
  EXPECT_EQ(json(rates["port_xmit_data"]), json::parse("[null, 400.0, 440.0]"));
  EXPECT_EQ(json(units["port_xmit_data"]), json::parse(R"(["bytes/s", "bytes/s", "bytes/s"])"));
  EXPECT_EQ(json(units["rcvd_pkts"]), json::parse(R"(["/s", "/s", "/s"])"));
  EXPECT_EQ(json(rates["rcvd_pkts"]), json::parse("[null, 30.0, 5.0]"));  // backwards under a new boot: reset
  EXPECT_EQ(json(rates["VL15_dropped"]), json::parse("[null, null, null]"));  // absent breaks the series
  EXPECT_EQ(rated["samples"][0]["boot_id"], "b1");

  auto bad = cli_.Get((query + "&rates=2").c_str());
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(Body(bad)["detail"]["param"], "rates");
}

// Without --web-dir the dashboard built into the binary is served: / is its
// index.html, the files it loads come with their types, unknown paths are 404.
TEST_F(ApiTest, ServesEmbeddedDashboard) {
  auto index = cli_.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(index->body.find("js/app.js"), std::string::npos) << index->body;
  auto js = cli_.Get("/js/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_FALSE(js->body.empty());
  auto wc = cli_.Get("/wc_status.json");
  ASSERT_TRUE(wc);
  EXPECT_EQ(wc->status, 200);
  EXPECT_TRUE(json::parse(wc->body).is_object() || json::parse(wc->body).is_array());
  auto missing = cli_.Get("/js/nope.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(Body(missing)["error"], "not found");
  auto readme = cli_.Get("/README.md");
  ASSERT_TRUE(readme);
  EXPECT_EQ(readme->status, 404);
}

TEST_F(ApiTest, MatrixHasNodesAndNewestPairs) {
  const int64_t now = NowMs();
  json r = MakeReport("a-1", "node-a", now);
  r["probes"].push_back(MakeProbe("node-b", now));
  ASSERT_EQ(Post(r)->status, 200);
  auto res = cli_.Get("/api/v1/matrix");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  json m = Body(res);
  EXPECT_EQ(m["nodes"].size(), 2u) << m.dump();  // node-b is known as a target only
  EXPECT_EQ(m["rows"].size(), 1u) << m.dump();
  auto bad = cli_.Get("/api/v1/matrix?since=soon");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(Body(bad)["detail"]["param"], "since");
}

TEST_F(ApiTest, BadQueryParameterIs400NamingIt) {
  auto res = cli_.Get("/api/v1/probes?since=yesterday");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(Body(res)["detail"]["param"], "since");
  auto kind = cli_.Get("/api/v1/events?kind=bogus");
  ASSERT_TRUE(kind);
  EXPECT_EQ(kind->status, 400);
  EXPECT_EQ(Body(kind)["detail"]["param"], "kind");
  auto pl = cli_.Get("/api/v1/pinglist");
  ASSERT_TRUE(pl);
  EXPECT_EQ(pl->status, 400);
  EXPECT_EQ(Body(pl)["detail"]["param"], "node");
  auto unknown = cli_.Get("/api/v1/nothing-here");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(Body(unknown)["error"], "not found");
}

TEST(ApiNoAuth, AcceptsWithoutToken) {
  ApiOptions o;
  o.auth = false;
  TestCollector c(o);
  httplib::Client cli("127.0.0.1", c.port());
  auto res = cli.Post("/api/v1/reports", MakeReport("a-1", "node-a", NowMs()).dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(c.Rows("reports"), 1);
}

TEST(ApiWebDir, ServesStaticFiles) {
  testsupport::ScratchDir scratch("collector_web_test");
  const std::string dir = scratch.path();
  std::ofstream(dir + "/index.html") << "<html>dashboard</html>";
  ApiOptions o;
  o.web_dir = dir;
  {
    TestCollector c(o);
    httplib::Client cli("127.0.0.1", c.port());
    auto res = cli.Get("/");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_NE(res->body.find("dashboard"), std::string::npos);
    EXPECT_EQ(cli.Get("/api/v1/nodes")->status, 200);
  }
}

}  // namespace
}  // namespace rdmascope::collector
