// ExtractProbes: every value the store writes for a probe, taken out once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "collector/core/probe_input.h"
#include "collector/readmodel/read_snapshot.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;

TEST(ProbeInput, TakesEveryStoredValue) {
  json r = MakeReport("r-1", "node-a", 1700000000000);
  json p = MakeProbe("node-b", 1700000000000, 0, 97, "ud", 60.0);
  p["rail"] = "3";
  p["summary"]["network_us"] = {{"count", 97}, {"p50", 5.5}, {"p99", 9.5}};
  r["probes"].push_back(p);
  auto in = ExtractProbes(r);
  ASSERT_EQ(in.size(), 1u);
  const ProbeInput& x = in[0];
  EXPECT_EQ(x.target, "node-b");
  EXPECT_EQ(x.transport, "ud");
  EXPECT_EQ(x.interval_start, 1700000000000 - 10000);
  EXPECT_EQ(x.interval_end, 1700000000000);
  EXPECT_EQ(x.local_device, "rxe0");
  EXPECT_EQ(x.local_port, 1);
  EXPECT_EQ(x.remote_host, "192.0.2.2");
  EXPECT_EQ(x.remote_device, "rxe1");
  EXPECT_EQ(x.rail, "3");
  EXPECT_FALSE(x.not_run);
  EXPECT_EQ(x.sent, 100);
  EXPECT_EQ(x.received, 97);
  EXPECT_EQ(x.lost, 3);
  EXPECT_DOUBLE_EQ(*x.loss_ratio, 0.03);
  EXPECT_EQ(x.rtt_count, 97);
  EXPECT_DOUBLE_EQ(*x.rtt_p50, 30.2);
  EXPECT_DOUBLE_EQ(*x.rtt_p99, 60.0);
  EXPECT_DOUBLE_EQ(*x.rtt_max, 66.0);
  EXPECT_DOUBLE_EQ(*x.network_p99, 9.5);
  EXPECT_FALSE(x.responder_p50) << "null stays absent";
  EXPECT_EQ(x.error_count, 0);
  EXPECT_EQ(x.errors_by_status_json, "{}");
  EXPECT_FALSE(x.has_errors);
}

TEST(ProbeInput, ALatencyObjectThatCountedNothingHasNoQuantiles) {
  json r = MakeReport("r-1", "node-a", 1700000000000);
  r["probes"].push_back(MakeProbe("node-b", 1700000000000, 0, /*received=*/0));
  auto in = ExtractProbes(r);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].rtt_count, 0);
  EXPECT_FALSE(in[0].rtt_min);
  EXPECT_FALSE(in[0].rtt_p50);
  EXPECT_FALSE(in[0].rtt_max);
}

TEST(ProbeInput, ErrorCountsComeFromTheSummaryMapBeforeTheList) {
  json r = MakeReport("r-1", "node-a", 1700000000000);
  json counted = MakeProbe("node-b", 1700000000000, 2);  // map says 2, list has 2
  counted["summary"]["errors_by_status"]["RETRY_EXC_ERR (12)"] = 40;  // more than were listed
  json listed = MakeProbe("node-c", 1700000000000, 3);
  listed["summary"]["errors_by_status"] = json::object();  // no map: the list counts
  r["probes"] = {counted, listed};
  auto in = ExtractProbes(r);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].error_count, 40);
  EXPECT_EQ(in[0].errors.size(), 2u);
  EXPECT_EQ(in[0].errors_by_status_json, R"({"RETRY_EXC_ERR":40})");
  EXPECT_EQ(in[0].first_explanation.at("RETRY_EXC_ERR"), "transport retry counter exceeded");
  EXPECT_TRUE(in[0].has_errors);
  EXPECT_EQ(in[1].error_count, 3);
  EXPECT_EQ(in[1].errors[0].status, 12);
  EXPECT_EQ(in[1].errors[0].vendor_err, 129);
  EXPECT_TRUE(in[1].has_errors);
}

// A report the validator did not see, with every count at the extremes:
// read without undefined behaviour (the sanitized build checks it), numbers
// beyond int64_t saturated, sums saturated.
TEST(ProbeInput, ExtremeNumbersSaturateInsteadOfOverflowing) {
  json r = MakeReport("r-x", "node-a", 1700000000000);
  json p = MakeProbe("node-b", 1700000000000, 1);
  p["summary"]["sent"] = 1e300;
  p["summary"]["received"] = 18446744073709551615ull;
  p["summary"]["lost"] = -1e300;
  p["summary"]["rtt_us"]["count"] = 1e19;
  p["summary"]["errors_by_status"] = {{"RETRY_EXC_ERR (12)", INT64_MAX}, {"RETRY_EXC_ERR", INT64_MAX}, {"WR_FLUSH_ERR (5)", INT64_MAX}};
  p["errors"][0]["status"] = std::nan("");
  p.erase("interval_start_ms");
  r["probes"].push_back(p);
  auto in = ExtractProbes(r);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].sent, INT64_MAX);
  EXPECT_EQ(in[0].received, INT64_MAX);
  EXPECT_EQ(in[0].lost, INT64_MIN);
  EXPECT_EQ(in[0].rtt_count, INT64_MAX);
  EXPECT_EQ(in[0].interval_start, 0) << "absent reads 0";
  EXPECT_EQ(in[0].error_counts.at("RETRY_EXC_ERR"), INT64_MAX) << "two keys of one status, summed, saturated";
  EXPECT_EQ(in[0].error_count, INT64_MAX);
}

TEST(ProbeAgg, SumsSaturateAtTheExtremes) {
  ProbeRow row;
  row.sent = row.lost = INT64_MAX;
  row.rtt_count = INT64_MAX;
  row.rtt_avg = 1.0;
  ProbeAgg a;
  a.Add(row);
  a.Add(row);
  EXPECT_EQ(a.sent, INT64_MAX);
  EXPECT_EQ(a.lost, INT64_MAX);
  EXPECT_EQ(a.rtt_count, INT64_MAX);
  ProbeAgg b;
  b.Merge(a);
  b.Merge(a);
  EXPECT_EQ(b.sent, INT64_MAX);
  EXPECT_EQ(b.rtt_count, INT64_MAX);
  row.sent = row.lost = INT64_MIN + 1;
  row.rtt_count = INT64_MIN + 1;
  ProbeAgg c;
  c.Add(row);
  c.Add(row);
  EXPECT_EQ(c.sent, INT64_MIN);
  EXPECT_EQ(c.rtt_count, INT64_MIN);
}

}  // namespace
}  // namespace rdmascope::collector
