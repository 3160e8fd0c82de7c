// /metrics: expected names and labels, and `promtool check metrics` accepts
// the text (skipped, saying why, when promtool is not installed).
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>

#include <prometheus/text_serializer.h>

#include "collector/metrics/metrics_hygiene.h"
#include "collector/readmodel/metrics_port_text.h"
#include "collector/metrics/metrics_render.h"
#include "common/counter_names.h"
#include "tests/collector/test_server.h"
#include "tests/support/required_tool.h"
#include "tests/support/run_command.h"
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

class MetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ApiOptions o;
    o.metrics_worst_pairs = 2;
    c_ = std::make_unique<TestCollector>(o);
    cli_ = std::make_unique<httplib::Client>("127.0.0.1", c_->port());
    const int64_t now = NowMs();
    json a = MakeReport("a-1", "node-a", now, /*state=*/1);
    a["probes"].push_back(MakeProbe("node-b", now, 2, 90, "rc", 80.0));
    a["probes"].push_back(MakeProbe("node-c", now, 0, 100, "rc", 20.0));
    a["probes"].push_back(MakeProbe("node-d", now, 0, 100, "ud", 30.0));
    json b = MakeReport("b-1", "node-b", now);
    b["labels"]["note"] = "quote \" and backslash \\ survive";
    b["probes"].push_back(MakeProbe("node-a", now, 0, 100, "rc", 40.0));
    for (const json& r : {a, b, a}) {
      auto res = cli_->Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kTestToken}}, r.dump(),
                            "application/json");
      ASSERT_TRUE(res);
      ASSERT_EQ(res->status, 200);
    }
    auto unauthorized = cli_->Post("/api/v1/reports", a.dump(), "application/json");
    ASSERT_TRUE(unauthorized);
    auto res = cli_->Get("/metrics");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
    text_ = res->body;
  }
  bool Has(const std::string& line) const { return text_.find(line) != std::string::npos; }
  // The value of the sample whose line starts with `series` ("name{labels}"); NaN when absent.
  double Value(const std::string& series) const {
    size_t pos = text_.find("\n" + series + " ");
    if (pos == std::string::npos) return std::nan("");
    return std::strtod(text_.c_str() + pos + series.size() + 2, nullptr);
  }

  std::unique_ptr<TestCollector> c_;
  std::unique_ptr<httplib::Client> cli_;
  std::string text_;
};

TEST_F(MetricsTest, ExportsTheDocumentedNames) {
  EXPECT_TRUE(Has("rdmascope_port_symbol_error_total{node=\"node-a\",device=\"mlx5_0\",port=\"1\"} 0")) << text_;
  EXPECT_TRUE(Has("rdmascope_port_data_transmitted_bytes_total{node=\"node-a\",device=\"mlx5_0\",port=\"1\"} 4000"));
  EXPECT_TRUE(Has("rdmascope_port_data_received_bytes_total{"));
  EXPECT_TRUE(Has("rdmascope_port_packets_transmitted_total{"));
  EXPECT_TRUE(Has("rdmascope_port_link_downed_total{"));
  EXPECT_TRUE(Has("rdmascope_port_receive_errors_total{"));
  EXPECT_TRUE(Has("rdmascope_port_hw_stat_total{node=\"node-a\",device=\"mlx5_0\",port=\"1\","
                  "counter=\"local_ack_timeout_err\"} 0"));
  EXPECT_FALSE(Has("VL15_dropped")) << "an absent counter is not exported as 0";
  EXPECT_TRUE(Has("rdmascope_port_info{node=\"node-b\",device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\","
                  "lid=\"7\",gid=\"fe80:0000:0000:0000:0002:c903:0001:2345\",mtu=\"4096\",rate=\"100\"} 1"));
  EXPECT_TRUE(Has("rdmascope_port_state{node=\"node-a\",device=\"mlx5_0\",port=\"1\"} 1"));
  EXPECT_TRUE(Has("rdmascope_port_up{node=\"node-a\",device=\"mlx5_0\",port=\"1\"} 0"));
  EXPECT_TRUE(Has("rdmascope_port_up{node=\"node-b\",device=\"mlx5_0\",port=\"1\"} 1"));
  // Per-target quantiles as gauges (the worst target's), never a Summary.
  EXPECT_NEAR(Value("rdmascope_probe_rtt_p99_seconds{node=\"node-a\",transport=\"rc\"}"), 80e-6, 1e-12);
  EXPECT_NEAR(Value("rdmascope_probe_rtt_p50_seconds{node=\"node-a\",transport=\"ud\"}"), 30.2e-6, 1e-12);
  EXPECT_NEAR(Value("rdmascope_probe_rtt_mean_seconds{node=\"node-a\",transport=\"rc\"}"), 31e-6, 1e-12);
  EXPECT_TRUE(Has("# TYPE rdmascope_probe_rtt_p99_seconds gauge"));
  EXPECT_FALSE(Has(" summary\n")) << "no Summary type is exported";
  EXPECT_FALSE(Has("rdmascope_probe_rtt_seconds"));
  EXPECT_NEAR(Value("rdmascope_probe_loss_ratio{node=\"node-a\",transport=\"rc\"}"), 0.05, 1e-12);
  EXPECT_TRUE(Has("rdmascope_wc_errors_total{node=\"node-a\",status=\"RETRY_EXC_ERR\"} 2"));
  EXPECT_TRUE(Has("rdmascope_node_last_report_timestamp_seconds{node=\"node-b\"}"));
  EXPECT_TRUE(Has("rdmascope_events_open{kind=\"wc_error\"} 1"));
  EXPECT_TRUE(Has("rdmascope_events_open{kind=\"port_state\"} 1"));
  EXPECT_TRUE(Has("rdmascope_events_open{kind=\"counter_threshold\"} 0"));
  EXPECT_TRUE(Has("rdmascope_collector_reports_total{result=\"stored\"} 2"));
  EXPECT_TRUE(Has("rdmascope_collector_reports_total{result=\"duplicate\"} 1"));
  EXPECT_TRUE(Has("rdmascope_collector_reports_total{result=\"unauthorized\"} 1"));
  EXPECT_TRUE(Has("rdmascope_collector_ingest_duration_seconds_bucket{"));
  EXPECT_TRUE(Has("rdmascope_collector_db_size_bytes "));
}

TEST_F(MetricsTest, WorstPairsAreBounded) {
  size_t n = 0;
  for (size_t pos = 0; (pos = text_.find("\nrdmascope_probe_pair_rtt_p99_seconds{", pos)) != std::string::npos; ++pos) ++n;
  EXPECT_EQ(n, 2u);
  EXPECT_NEAR(Value("rdmascope_probe_pair_rtt_p99_seconds{src=\"node-a\",dst=\"node-b\",transport=\"rc\"}"), 80e-6,
              1e-12);
  EXPECT_NEAR(Value("rdmascope_probe_pair_rtt_p99_seconds{src=\"node-b\",dst=\"node-a\",transport=\"rc\"}"), 40e-6,
              1e-12);
}

TEST_F(MetricsTest, PromtoolAcceptsTheText) {
  auto promtool = rdmascope::testsupport::FindTool("promtool");
  if (!promtool) RDMASCOPE_TOOL_MISSING("promtool", "prometheus", "the exposition format lint");
  auto res = rdmascope::testsupport::RunCommand({*promtool, "check", "metrics"}, 60000, text_);
  EXPECT_EQ(res.exit_code, 0) << "promtool check metrics said:\n" << res.out << res.err << "\n--- text ---\n" << text_;
}

TEST_F(MetricsTest, FreshNodesAreMarkedNotStale) {
  EXPECT_TRUE(Has("rdmascope_node_stale{node=\"node-a\"} 0")) << text_;
}

// End to end: the port rows of a node silent past the drop time leave the
// text with the node (they are rendered from the node's own rows).
TEST(MetricsHygiene, ADroppedNodesPortsLeaveTheText) {
  std::atomic<int64_t> now{NowMs()};
  ApiOptions o;
  o.now_ms = [&now] { return now.load(); };
  o.metrics_drop_after_ms = 3600LL * 1000;
  TestCollector c(o);
  httplib::Client cli("127.0.0.1", c.port());
  const httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kTestToken}};
  auto post = [&](const json& r) {
    auto res = cli.Post("/api/v1/reports", auth, r.dump(), "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
  };
  auto metrics = [&] {
    auto res = cli.Get("/metrics", auth);
    return res && res->status == 200 ? res->body : std::string("no answer");
  };
  post(MakeReport("gone-1", "node-gone", now.load()));
  EXPECT_NE(metrics().find("rdmascope_port_up{node=\"node-gone\""), std::string::npos);
  now += 2 * 3600LL * 1000;
  post(MakeReport("live-1", "node-live", now.load()));
  const std::string text = metrics();
  EXPECT_NE(text.find("rdmascope_port_up{node=\"node-live\""), std::string::npos) << text;
  EXPECT_EQ(text.find("node=\"node-gone\""), std::string::npos) << text;
}

TEST(MetricsHygiene, StatusLabelTakesOnlyKnownValues) {
  EXPECT_EQ(BoundedWcStatus("RETRY_EXC_ERR"), "RETRY_EXC_ERR");
  EXPECT_EQ(BoundedWcStatus("IBV_WC_RNR_RETRY_EXC_ERR"), "RNR_RETRY_EXC_ERR");
  EXPECT_EQ(BoundedWcStatus("PROBE_DEADLINE"), "PROBE_DEADLINE");
  EXPECT_EQ(BoundedWcStatus("CONNECT"), "CONNECT");
  EXPECT_EQ(BoundedWcStatus("x\"} 1\nevil_metric 1"), "OTHER");
  EXPECT_EQ(BoundedWcStatus(""), "OTHER");
}

TEST(MetricsHygiene, SilentNodesAreMarkedThenDropped) {
  const int64_t now = 10'000'000;
  json snap = {
      {"nodes", {{{"name", "fresh"}, {"last_report_at", now - 1'000}},
                 {{"name", "quiet"}, {"last_report_at", now - 200'000}},
                 {{"name", "gone"}, {"last_report_at", now - 4'000'000}}}},
      {"ports", {{{"node", "fresh"}}, {{"node", "gone"}}}},
      {"counters", {{{"node", "gone"}}}},
      {"wc_totals", {{{"node", "quiet"}}, {{"node", "gone"}}}},
      {"probe_nodes", {{{"src", "gone"}}, {{"src", "fresh"}}}},
      {"worst_pairs", {{{"src", "gone"}, {"dst", "fresh"}}, {{"src", "fresh"}, {"dst", "gone"}}}},
  };
  ApplyNodeStaleness(snap, now, 120'000, 3'600'000);
  ASSERT_EQ(snap["nodes"].size(), 2u);
  EXPECT_EQ(snap["nodes"][0]["stale"], false);
  EXPECT_EQ(snap["nodes"][1]["stale"], true);
  EXPECT_EQ(snap["ports"].size(), 1u);
  EXPECT_EQ(snap["counters"].size(), 0u);
  EXPECT_EQ(snap["wc_totals"].size(), 1u);
  ASSERT_EQ(snap["worst_pairs"].size(), 1u) << "a live node's probes toward a gone node stay (they show the loss)";
  EXPECT_EQ(snap["worst_pairs"][0]["src"], "fresh");
  ASSERT_EQ(snap["probe_nodes"].size(), 1u);
  EXPECT_EQ(snap["probe_nodes"][0]["src"], "fresh");
  json keep = {{"nodes", {{{"name", "gone"}, {"last_report_at", 0}}}}};
  ApplyNodeStaleness(keep, now, 120'000, 0);
  EXPECT_EQ(keep["nodes"].size(), 1u) << "drop_after 0 keeps every node";
}

TEST(MetricsNames, NodeExporterStyleCounterNames) {
  EXPECT_EQ(PortCounterMetricName("symbol_error"), "rdmascope_port_symbol_error_total");
  EXPECT_EQ(PortCounterMetricName("excessive_buffer_overrun_errors"),
            "rdmascope_port_excessive_buffer_overrun_errors_total");
  EXPECT_EQ(PortCounterMetricName("port_rcv_data_bytes"), "rdmascope_port_data_received_bytes_total");
  EXPECT_EQ(PortCounterMetricName("no_such_counter"), "");
}

// The port families are written without prometheus-cpp (metrics_port_text.h):
// their text must be what its serializer writes for the same samples.
TEST(MetricsPortText, MatchesTheLibrarySerializer) {
  const json ports = json::parse(R"([
    {"node": "node-a", "device": "mlx5_0", "port": 1, "state": 4, "link_layer": "InfiniBand", "lid": 7,
     "gids": [{"index": 0, "gid": "fe80::1"}], "active_mtu": 4096, "rate_gbps": 12.5},
    {"node": "we\\ird \"node\"\nx", "device": "rxe0", "port": 2, "state": null, "link_layer": "Ethernet",
     "lid": null, "gids": [], "active_mtu": null, "rate_gbps": 100.0},
    {"node": "node-b", "device": "mlx5_1", "port": 1, "state": 1, "link_layer": null, "lid": 0, "gids": null,
     "active_mtu": 1024, "rate_gbps": 0.000123456789}
  ])");
  const json counters = json::parse(R"([
    {"node": "node-a", "device": "mlx5_0", "port": 1, "kind": "counters", "name": "symbol_error", "value": 0},
    {"node": "node-a", "device": "mlx5_0", "port": 1, "kind": "counters", "name": "port_xmit_data_bytes",
     "value": 123456789012345678},
    {"node": "node-a", "device": "mlx5_0", "port": 1, "kind": "counters", "name": "odd_one", "value": 3},
    {"node": "node-a", "device": "mlx5_0", "port": 1, "kind": "hw_counters", "name": "rnr_nak_retry_err",
     "value": 9007199254740993},
    {"node": "node-b", "device": "mlx5_1", "port": 1, "kind": "counters", "name": "symbol_error", "value": 17},
    {"node": "node-b", "device": "mlx5_1", "port": 1, "kind": "counters", "name": "link_downed", "value": 999999999999999},
    {"node": "node-b", "device": "mlx5_1", "port": 1, "kind": "counters", "name": "port_rcv_errors", "value": -5},
    {"node": "node-b", "device": "mlx5_1", "port": 1, "kind": "counters", "name": "port_xmit_wait", "value": 2.5},
    {"node": "node-b", "device": "mlx5_1", "port": 1, "kind": "counters", "name": "VL15_dropped", "value": -0.0},
    {"node": "node-b", "device": "mlx5_1", "port": 1, "kind": "hw_counters", "name": "q\"uote", "value": 1}
  ])");
  const json sets[] = {ports, counters};
  PortRowSets rows;
  rows.ports = {&sets[0]};
  rows.counters = {&sets[1]};
  std::string ours;
  const PortFamilies whole = RenderPortFamilies(rows);
  AppendPortFamiliesText({&whole}, &ours);

  std::map<std::string, prometheus::MetricFamily> families;
  auto add = [&](const std::string& name, const std::string& help, prometheus::MetricType type, const json& row,
                 std::vector<prometheus::ClientMetric::Label> extra, double value) {
    prometheus::MetricFamily& f = families[name];
    f.name = name;
    f.help = help;
    f.type = type;
    prometheus::ClientMetric m;
    m.label = {{"node", MetricLabelText(row["node"])}, {"device", MetricLabelText(row["device"])},
               {"port", MetricLabelText(row["port"])}};
    m.label.insert(m.label.end(), extra.begin(), extra.end());
    (type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value) = value;
    f.metric.push_back(m);
  };
  const auto gauge = prometheus::MetricType::Gauge, counter = prometheus::MetricType::Counter;
  for (const json& p : ports) {
    std::string gid = p["gids"].is_array() && !p["gids"].empty() ? MetricLabelText(p["gids"][0]["gid"]) : "";
    add("rdmascope_port_info", "Port identity: link layer, LID, first GID, active MTU (bytes), rate (Gb/s); always 1.",
        gauge, p,
        {{"link_layer", MetricLabelText(p["link_layer"])}, {"lid", MetricLabelText(p["lid"])}, {"gid", gid},
         {"mtu", MetricLabelText(p["active_mtu"])}, {"rate", MetricLabelText(p["rate_gbps"])}},
        1);
    if (!p["state"].is_null())
      add("rdmascope_port_state", "Port logical state number (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER).",
          gauge, p, {}, p["state"].get<double>());
    add("rdmascope_port_up", "1 when the port state is ACTIVE, else 0 (also when the state is unknown).", gauge, p, {},
        p["state"] == 4 ? 1 : 0);
  }
  for (const json& c : counters) {
    const std::string name = c["name"];
    const double v = c["value"].get<double>();
    if (!IsKnownCounterName(c["kind"].get<std::string>(), name)) continue;  // not in the shared table
    if (c["kind"] == "counters" && !PortCounterMetricName(name).empty())
      add(PortCounterMetricName(name), "Port counter " + name + " (sysfs ports/N/counters), as last reported.",
          counter, c, {}, v);
    else if (c["kind"] == "hw_counters")
      add("rdmascope_port_hw_stat_total", "Port hw_counters (driver-specific), as last reported.", counter, c,
          {{"counter", name}}, v);
    else
      add("rdmascope_port_stat_total", "Port counters without a dedicated metric name, as last reported.", counter, c,
          {{"counter", name}}, v);
  }
  std::vector<prometheus::MetricFamily> all;
  for (auto& [name, f] : families) all.push_back(f);
  EXPECT_EQ(ours, prometheus::TextSerializer().Serialize(all));
  EXPECT_NE(ours.find("node=\"we\\\\ird \\\"node\\\"\\nx\""), std::string::npos) << ours;

  // Rendered per node and merged (as /metrics does from the read snapshot):
  // the same text as the rows rendered at once, when each node's rows are
  // contiguous in the whole.
  const json node_a_ports = json::array({ports[0]}), rest_ports = json::array({ports[1], ports[2]});
  json node_a_counters = json::array(), rest_counters = json::array();
  for (const json& c : counters) (c["node"] == "node-a" ? node_a_counters : rest_counters).push_back(c);
  PortRowSets a_rows, rest_rows;
  a_rows.ports = {&node_a_ports};
  a_rows.counters = {&node_a_counters};
  rest_rows.ports = {&rest_ports};
  rest_rows.counters = {&rest_counters};
  const PortFamilies a = RenderPortFamilies(a_rows), rest = RenderPortFamilies(rest_rows);
  std::string merged;
  AppendPortFamiliesText({&a, &rest}, &merged);
  EXPECT_EQ(merged, ours);
}

// What a node sends cannot add series: a counter name outside the shared
// table is left out of /metrics, of either kind, however many there are.
TEST(MetricsPortText, CounterNamesOutsideTheTableAddNoSeries) {
  json counters = json::array();
  for (int i = 0; i < 1000; ++i)
    for (const char* kind : {"counters", "hw_counters"})
      counters.push_back({{"node", "n"}, {"device", "d"}, {"port", 1}, {"kind", kind},
                          {"name", "invented_" + std::to_string(i)}, {"value", i}});
  counters.push_back({{"node", "n"}, {"device", "d"}, {"port", 1}, {"kind", "hw_counters"},
                      {"name", "out_of_buffer"}, {"value", 7}});
  PortRowSets rows;
  rows.counters = {&counters};
  const PortFamilies families = RenderPortFamilies(rows);
  std::string text;
  AppendPortFamiliesText({&families}, &text);
  EXPECT_EQ(text.find("invented_"), std::string::npos) << text.substr(0, 2000);
  EXPECT_NE(text.find("rdmascope_port_hw_stat_total{node=\"n\",device=\"d\",port=\"1\",counter=\"out_of_buffer\"} 7\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(IsKnownCounterName("counters", "symbol_error"));
  EXPECT_FALSE(IsKnownCounterName("counters", "out_of_buffer"));  // a hw_counters name only
  EXPECT_FALSE(IsKnownCounterName("other", "symbol_error"));
}

// The writer renders these when it publishes a node: a value of the wrong
// type is left out, never thrown on.
TEST(MetricsPortText, RowsOfTheWrongTypeAreLeftOutNotThrown) {
  const json ports = json::parse(R"([{"node": "n", "device": "d", "port": 1, "state": "4", "link_layer": null,
                                       "lid": null, "gids": "?", "active_mtu": null, "rate_gbps": null}])");
  const json counters = json::parse(R"([
    {"node": "n", "device": "d", "port": 1, "kind": "counters", "name": "symbol_error", "value": null},
    {"node": "n", "device": "d", "port": 1, "kind": 7, "name": "symbol_error", "value": 1},
    {"node": "n", "device": "d", "port": 1, "kind": "counters", "name": "link_downed", "value": 3}
  ])");
  PortRowSets rows;
  rows.ports = {&ports};
  rows.counters = {&counters};
  PortFamilies families;
  ASSERT_NO_THROW(families = RenderPortFamilies(rows));
  std::string text;
  AppendPortFamiliesText({&families}, &text);
  EXPECT_EQ(text.find("rdmascope_port_state{"), std::string::npos) << text;
  EXPECT_NE(text.find("rdmascope_port_up{node=\"n\",device=\"d\",port=\"1\"} 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("rdmascope_port_symbol_error_total"), std::string::npos) << text;
  EXPECT_NE(text.find("rdmascope_port_link_downed_total{node=\"n\",device=\"d\",port=\"1\"} 3\n"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace rdmascope::collector
