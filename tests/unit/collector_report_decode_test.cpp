// DecodeReport: one simdjson parse gives the probes as ExtractProbes gives
// them and the rest of the report as nlohmann::json; duplicate keys keep the
// first, in what is checked and in what is stored.
#include <gtest/gtest.h>

#include <string>

#include "collector/ingest/report_decode.h"
#include "collector/ingest/report_validate.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;
using testing::MakeSweep;

json ReportWithProbes() {
  json r = MakeReport("node-a-1700000000000-000042", "node-a", 1700000000000);
  r["labels"] = {{"group", "rack1"}, {"control_port", "18610"}};
  json ok = MakeProbe("node-b", 1700000000000, 0, 97, "ud", 60.0);
  ok["rail"] = "3";
  ok["summary"]["network_us"] = {{"count", 97}, {"p50", 5.5}, {"p99", 9.5}};
  json failing = MakeProbe("node-c", 1700000000000, 2);
  failing["summary"]["errors_by_status"]["RETRY_EXC_ERR (12)"] = 40;
  r["probes"] = {ok, failing, MakeProbe("node-d", 1700000000000, 0, 0)};
  return r;
}

void ExpectSameProbe(const ProbeInput& a, const ProbeInput& b) {
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.transport, b.transport);
  EXPECT_EQ(a.interval_start, b.interval_start);
  EXPECT_EQ(a.interval_end, b.interval_end);
  EXPECT_EQ(a.local_device, b.local_device);
  EXPECT_EQ(a.local_port, b.local_port);
  EXPECT_EQ(a.remote_host, b.remote_host);
  EXPECT_EQ(a.remote_device, b.remote_device);
  EXPECT_EQ(a.remote_port, b.remote_port);
  EXPECT_EQ(a.rail, b.rail);
  EXPECT_EQ(a.not_run, b.not_run);
  EXPECT_EQ(a.sent, b.sent);
  EXPECT_EQ(a.received, b.received);
  EXPECT_EQ(a.lost, b.lost);
  EXPECT_EQ(a.loss_ratio, b.loss_ratio);
  EXPECT_EQ(a.rtt_count, b.rtt_count);
  EXPECT_EQ(a.rtt_min, b.rtt_min);
  EXPECT_EQ(a.rtt_avg, b.rtt_avg);
  EXPECT_EQ(a.rtt_p50, b.rtt_p50);
  EXPECT_EQ(a.rtt_p90, b.rtt_p90);
  EXPECT_EQ(a.rtt_p99, b.rtt_p99);
  EXPECT_EQ(a.rtt_p999, b.rtt_p999);
  EXPECT_EQ(a.rtt_max, b.rtt_max);
  EXPECT_EQ(a.network_p50, b.network_p50);
  EXPECT_EQ(a.network_p99, b.network_p99);
  EXPECT_EQ(a.responder_p99, b.responder_p99);
  EXPECT_EQ(a.read_p99, b.read_p99);
  EXPECT_EQ(a.error_counts, b.error_counts);
  EXPECT_EQ(a.first_explanation, b.first_explanation);
  EXPECT_EQ(a.error_count, b.error_count);
  EXPECT_EQ(a.errors_by_status_json, b.errors_by_status_json);
  EXPECT_EQ(a.has_errors, b.has_errors);
  ASSERT_EQ(a.errors.size(), b.errors.size());
  for (size_t i = 0; i < a.errors.size(); ++i) {
    EXPECT_EQ(a.errors[i].status, b.errors[i].status);
    EXPECT_EQ(a.errors[i].status_name, b.errors[i].status_name);
    EXPECT_EQ(a.errors[i].vendor_err, b.errors[i].vendor_err);
    EXPECT_EQ(a.errors[i].opcode, b.errors[i].opcode);
    EXPECT_EQ(a.errors[i].explanation, b.errors[i].explanation);
    EXPECT_EQ(a.errors[i].wall_ms, b.errors[i].wall_ms);
    EXPECT_EQ(a.errors[i].after_ms, b.errors[i].after_ms);
  }
}

TEST(ReportDecode, TheProbesComeOutAsFromTheDomAndTheRestStaysJson) {
  json r = ReportWithProbes();
  const DecodedReport d = DecodeReport(r.dump());
  ASSERT_EQ(d.problem, DecodedReport::Problem::kNone) << d.error.field << ": " << d.error.problem;
  const std::vector<ProbeInput> expected = ExtractProbes(r);
  ASSERT_EQ(d.probes.size(), 3u);
  for (size_t i = 0; i < expected.size(); ++i) ExpectSameProbe(d.probes[i], expected[i]);
  EXPECT_EQ(d.probes[1].error_count, 40);
  EXPECT_FALSE(d.probes[2].rtt_p50) << "a latency object that counted nothing has no quantiles";
  EXPECT_FALSE(d.report.contains("probes"));
  r.erase("probes");
  EXPECT_EQ(d.report, r);
  EXPECT_TRUE(d.report["generated_at_ms"].is_number_unsigned()) << "typed as nlohmann's parser types it";
}

TEST(ReportDecode, OfDuplicateKeysTheFirstIsCheckedAndKept) {
  json r = ReportWithProbes();
  std::string body = r.dump();
  // A second "node" (invalid) and a second probe target, after the first ones.
  body.insert(body.size() - 1, R"(,"node":"not a node name!")");
  const std::string first_target = R"("target":"node-b")";
  ASSERT_NE(body.find(first_target), std::string::npos);
  body.insert(body.find(first_target) + first_target.size(), R"(,"target":"node-z")");
  const DecodedReport d = DecodeReport(body);
  ASSERT_EQ(d.problem, DecodedReport::Problem::kNone) << d.error.field << ": " << d.error.problem;
  EXPECT_EQ(d.report["node"], "node-a");
  EXPECT_EQ(d.probes[0].target, "node-b");

  // The first one decides: an invalid first node is refused even when a valid one follows.
  std::string bad = r.dump();
  bad.insert(1, R"("node":"not a node name!",)");
  const DecodedReport refused = DecodeReport(bad);
  EXPECT_EQ(refused.problem, DecodedReport::Problem::kInvalid);
  EXPECT_EQ(refused.error.field, "/node");
}

TEST(ReportDecode, ABodyThatIsNotJsonIsASyntaxProblem) {
  for (const std::string body : {"", "{", "[1, 2", "{\"node\": \"a\"} trailing", "\xff\xfe{}",
                                 // an integer beyond 64 bits is not taken as a float here
                                 "{\"x\": 123456789012345678901234567890}"}) {
    const DecodedReport d = DecodeReport(body);
    EXPECT_EQ(d.problem, DecodedReport::Problem::kSyntax) << body;
    EXPECT_EQ(d.error.field, "");
    EXPECT_FALSE(d.error.problem.empty()) << body;
    EXPECT_TRUE(d.probes.empty());
  }
}

TEST(ReportDecode, AnInvalidReportKeepsOnlyItsNodeForTheLog) {
  json r = ReportWithProbes();
  r["probes"][1]["summary"]["sent"] = -1;
  const DecodedReport d = DecodeReport(r.dump());
  ASSERT_EQ(d.problem, DecodedReport::Problem::kInvalid);
  EXPECT_EQ(d.error.field, "/probes/1/summary/sent");
  EXPECT_EQ(d.error.problem, "expected a non-negative integer");
  EXPECT_EQ(d.report, json({{"node", "node-a"}}));
  EXPECT_TRUE(d.probes.empty());
}

// "-0" is zero: the decoder and the DOM validator agree on it, in the fabric
// sweep's counters and forwarding table as in the rest of the report.
TEST(ReportDecode, MinusZeroIsZeroInTheFabricAsInTheRest) {
  json r = MakeReport("node-a-1700000000000-000042", "node-a", 1700000000000);
  r["fabric"] = MakeSweep("0x0000000000000200", "sw1");
  r["fabric"]["nodes"][0]["ports"][0]["counters"] = {{"symbol_error", 0}, {"port_xmit_wait", 7}};
  r["fabric"]["nodes"][0]["lft"] = {1, 255};
  const std::string good = r.dump();
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"symbol_error\":0", "\"symbol_error\":-0"},
                                 {"\"lft\":[1,", "\"lft\":[-0,"}}) {
    std::string body = good;
    ASSERT_NE(body.find(from), std::string::npos) << from;
    body.replace(body.find(from), from.size(), to);
    const DecodedReport d = DecodeReport(body);
    EXPECT_EQ(d.problem, DecodedReport::Problem::kNone) << to << ": " << d.error.field << ": " << d.error.problem;
    EXPECT_FALSE(ValidateReport(json::parse(body)).has_value()) << to;

    std::string negative = good;
    negative.replace(negative.find(from), from.size(), std::string(to).replace(to.find("-0"), 2, "-1"));
    EXPECT_EQ(DecodeReport(negative).problem, DecodedReport::Problem::kInvalid) << negative;
    EXPECT_TRUE(ValidateReport(json::parse(negative)).has_value()) << negative;
  }
}

TEST(ReportDecode, ShiftProbeTimesMovesBothEndsAndStopsAtZero) {
  std::vector<ProbeInput> probes(2);
  probes[0].interval_start = 10000, probes[0].interval_end = 20000;
  probes[1].interval_start = 1000, probes[1].interval_end = 9000;
  ShiftProbeTimes(probes, 5000);
  EXPECT_EQ(probes[0].interval_start, 5000);
  EXPECT_EQ(probes[0].interval_end, 15000);
  EXPECT_EQ(probes[1].interval_start, 0);
  EXPECT_EQ(probes[1].interval_end, 4000);
  ShiftProbeTimes(probes, -1000);  // an agent behind the collector
  EXPECT_EQ(probes[0].interval_start, 6000);
}

}  // namespace
}  // namespace rdmascope::collector
