// Hostile counts and times against the collector daemon as a process (part of
// collector_hostile_input_test): a count no node can produce is refused; the
// largest allowed, twice for one pair in one minute, is rolled up and the
// retention passes after it run (watched on /metrics); a body ten years
// ahead with a current Date is stored at receive time with a clock_skew
// event, nothing in the future. One row per case: input, status, collector
// RSS before -> after, alive, what was checked.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "common/http_date.h"
#include "tests/collector/child_collector.h"
#include "tests/collector/hostile_support.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::NowMs;
using testing::MakeProbe;
using testing::MakeReport;
using testing::QueryInt;
using testing::RssKb;

constexpr char kToken[] = "token-of-node-a-bounds";
constexpr int64_t kMaxCount = int64_t{1} << 40;

void Row(const std::string& input, const std::string& status, long before, long after, bool alive,
         const std::string& extra) {
  std::printf("%-48s %-30s %8ld kB -> %8ld kB  alive=%s  %s\n", input.c_str(), status.c_str(), before, after,
              alive ? "yes" : "no", extra.c_str());
  std::fflush(stdout);
}

bool Alive(httplib::Client& cli) {
  auto r = cli.Get("/healthz");
  return r && r->status == 200;
}

std::string StatusOf(const httplib::Result& r) {
  if (!r) return "no answer (" + httplib::to_string(r.error()) + ")";
  return "HTTP " + std::to_string(r->status);
}

// The value of one sample line of /metrics ("name{labels}"), or -1.
double MetricValue(httplib::Client& cli, const std::string& sample) {
  auto r = cli.Get("/metrics");
  if (!r || r->status != 200) return -1;
  const size_t at = r->body.find("\n" + sample + " ");
  if (at == std::string::npos) return -1;
  return std::stod(r->body.substr(at + sample.size() + 2));
}

// A report of node-a with one probe to node-b ending at end_ms, every count as given.
json CountsReport(const std::string& id, int64_t end_ms, int64_t sent, int64_t received, int64_t lost) {
  json r = MakeReport(id, "node-a", end_ms);
  json p = MakeProbe("node-b", end_ms);
  p["summary"]["sent"] = sent;
  p["summary"]["received"] = received;
  p["summary"]["lost"] = lost;
  p["summary"]["rtt_us"]["count"] = received;
  r["probes"].push_back(p);
  return r;
}

TEST(HostileInput, BoundsCountsAndTimes) {
  testsupport::ScratchDir scratch("collector_hostile_bounds");
  const std::string dir = scratch.path();
  const std::string db = dir + "/c.db";
  std::ofstream(dir + "/tokens") << "node-a " << kToken << "\n";
  testing::ChildCollector child;
  std::string why;
  const int port = child.Start(COLLECTOR_PATH,
                               {"--db", db, "--token-file", dir + "/tokens", "--retention-interval-s", "1"},
                               dir + "/log", 20000, &why);
  ASSERT_GT(port, 0) << why;
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(30);
  const httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  // With a current Date, as an agent sends it: a body from minutes ago is a replay, not skew.
  auto post = [&](const json& body, httplib::Headers headers) {
    headers.emplace("Date", FormatHttpDate(NowMs()));
    return cli.Post("/api/v1/reports", headers, body.dump(), "application/json");
  };

  // Ten minutes ago: a closed slice the next retention pass rolls up.
  const int64_t end = (NowMs() - 10 * 60 * 1000) / 60000 * 60000 + 5000;
  {
    const long before = RssKb(child.pid());
    auto r = post(CountsReport("max-int64", end, INT64_MAX, INT64_MAX, INT64_MAX), auth);
    const bool alive = Alive(cli);
    const json answer = r ? json::parse(r->body, nullptr, false) : json();
    Row("summary with sent/received/lost = INT64_MAX", StatusOf(r), before, RssKb(child.pid()), alive,
        answer.is_object() && answer.contains("detail") ? answer["detail"].dump() : "");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    EXPECT_TRUE(alive);
    EXPECT_EQ(testing::CountRows(db, "probe_summaries"), 0);
  }
  for (int i = 0; i < 2; ++i) {
    const long before = RssKb(child.pid());
    auto r = post(CountsReport("max-allowed-" + std::to_string(i), end + i * 1000, kMaxCount, kMaxCount - 1, 1), auth);
    const bool alive = Alive(cli);
    Row("summary " + std::to_string(i + 1) + "/2 at 2^40 (same pair, same minute)", StatusOf(r), before,
        RssKb(child.pid()), alive, "");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_TRUE(alive);
  }
  const std::string passes = "rdmascope_collector_retention_passes_total{result=\"ok\"}";
  const std::string skipped = "rdmascope_collector_rollup_steps_skipped_total";
  double seen = MetricValue(cli, passes);
  ASSERT_GE(seen, 0) << "no " << passes << " on /metrics";
  for (int pass = 1; pass <= 3; ++pass) {
    const long before = RssKb(child.pid());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    double now_seen = seen;
    while ((now_seen = MetricValue(cli, passes)) <= seen && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const bool ran = now_seen > seen;
    seen = now_seen;
    const int64_t minute_sent = QueryInt(db, "SELECT TOTAL(sent) FROM probe_minute");
    Row("retention pass " + std::to_string(pass) + " after them", ran ? "ran" : "did not run within 30 s", before,
        RssKb(child.pid()), Alive(cli),
        "passes_ok=" + std::to_string(static_cast<int64_t>(now_seen)) +
            " rollup_steps_skipped=" + std::to_string(static_cast<int64_t>(MetricValue(cli, skipped))) +
            " probe_minute.sent=" + std::to_string(minute_sent));
    EXPECT_TRUE(ran) << "retention pass " << pass << "; log:\n" << child.Log();
    EXPECT_EQ(minute_sent, 2 * kMaxCount) << "both summaries rolled up";
  }
  EXPECT_EQ(MetricValue(cli, skipped), 0);

  {
    const int64_t now = NowMs();
    const int64_t ahead = now + 3650LL * 86400 * 1000;
    json body = MakeReport("ten-years-ahead", "node-a", ahead);
    body["probes"].push_back(MakeProbe("node-b", ahead));
    const long before = RssKb(child.pid());
    auto r = post(body, auth);
    const bool alive = Alive(cli);
    auto events = cli.Get("/api/v1/events?open=1&kind=clock_skew&node=node-a");
    const json ev = events ? json::parse(events->body, nullptr, false) : json();
    const size_t open = ev.is_object() && ev.contains("events") ? ev["events"].size() : 0;
    const int64_t newest = std::max({QueryInt(db, "SELECT MAX(interval_end) FROM probe_summaries"),
                                     QueryInt(db, "SELECT MAX(generated_at) FROM reports"),
                                     QueryInt(db, "SELECT MAX(last_generated_at) FROM nodes")});
    Row("body 10 years ahead with Date: now", StatusOf(r), before, RssKb(child.pid()), alive,
        "clock_skew open=" + std::to_string(open) + " newest stored time - now = " +
            std::to_string((newest - now) / 1000) + " s");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_TRUE(alive);
    EXPECT_EQ(open, 1u) << (events ? events->body : "no answer");
    EXPECT_LT(newest, NowMs() + 60 * 1000) << "a time in the future was stored";
  }
  child.Stop(10000);
}

}  // namespace
}  // namespace rdmascope::collector
