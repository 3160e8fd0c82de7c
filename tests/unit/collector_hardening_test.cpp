// Hostile HTTP input against an in-process collector: every case is refused
// with a 4xx before a body is read or stored, and the collector keeps serving.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <sstream>
#include <string>

#include "collector/rules/clock_skew.h"
#include "collector/http/request_guard.h"
#include "collector/store/store_db.h"
#include "common/http_date.h"
#include "tests/collector/test_server.h"
#include "tests/support/raw_http.h"
#include "tests/support/required_tool.h"
#include "tests/support/run_command.h"
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

std::string RawRequest(int port, const std::string& head, size_t body_bytes) {
  return rdmascope::testsupport::RawHttpRequest(port, head, body_bytes);
}

class HardeningTest : public ::testing::Test {
 protected:
  static ApiOptions Options() {
    ApiOptions o;
    o.max_body_bytes = 64 * 1024;
    return o;
  }
  void ExpectNothingStoredAndAlive() {
    EXPECT_EQ(c_.Rows("reports"), 0);
    EXPECT_EQ(c_.Rows("nodes"), 0);
    httplib::Client cli("127.0.0.1", c_.port());
    auto res = cli.Get("/healthz");
    ASSERT_TRUE(res) << "collector stopped answering";
    EXPECT_EQ(res->status, 200);
  }
  TestCollector c_{Options()};
  const std::string auth_ = std::string("Authorization: Bearer ") + kTestToken + "\r\n";
};

// Every report is a connection of its own, so a fleet connects in bursts:
// the accept queue must hold them (the HTTP library listens with a backlog
// of 5, and an overflow costs a client a 1 s SYN retransmission or a reset).
TEST_F(HardeningTest, ListenQueueHoldsABurstOfConnections) {
  auto ss = rdmascope::testsupport::FindTool("ss");
  if (!ss) RDMASCOPE_TOOL_MISSING("ss", "iproute2", "reading the listen backlog");
  auto r = rdmascope::testsupport::RunCommand({*ss, "-Hltn", "sport = :" + std::to_string(c_.port())}, 10000);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream line(r.out);  // "LISTEN  0  1024  127.0.0.1:PORT  0.0.0.0:*"
  std::string state;
  long queued = -1, backlog = -1;
  line >> state >> queued >> backlog;
  EXPECT_EQ(state, "LISTEN") << r.out;
  EXPECT_GE(backlog, 1024) << r.out;
}

TEST_F(HardeningTest, ChunkedPostToAnyPathIsRefused) {
  EXPECT_EQ(RawRequest(c_.port(), "POST /anything HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 4 << 20),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(RawRequest(c_.port(),
                       "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\n" + auth_ + "Transfer-Encoding: chunked\r\n\r\n",
                       4 << 20),
            "HTTP/1.1 411 Length Required");
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, BodyWithoutLengthIsRefusedUnread) {
  // 64 MiB offered with no Content-Length: refused at once, not read to EOF.
  EXPECT_EQ(RawRequest(c_.port(), "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\n" + auth_ + "\r\n", 64u << 20),
            "HTTP/1.1 411 Length Required");
  EXPECT_EQ(RawRequest(c_.port(), "PUT /api/v1/nodes HTTP/1.1\r\nHost: x\r\n\r\n", 1u << 20),
            "HTTP/1.1 411 Length Required");
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, BodyOnARouteThatTakesNoneIsRefused) {
  EXPECT_EQ(RawRequest(c_.port(), "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n", 1u << 20),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(RawRequest(c_.port(), "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", 5),
            "HTTP/1.1 400 Bad Request");
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, CompressedBodyIsRefusedOnEveryPath) {
  // The bytes are never inflated: refused on the header alone.
  EXPECT_EQ(RawRequest(c_.port(),
                       "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\n" + auth_ +
                           "Content-Encoding: gzip\r\nContent-Length: 1000\r\n\r\n",
                       1000),
            "HTTP/1.1 415 Unsupported Media Type");
  EXPECT_EQ(RawRequest(c_.port(), "POST /x HTTP/1.1\r\nHost: x\r\nContent-Encoding: br\r\nContent-Length: 10\r\n\r\n", 10),
            "HTTP/1.1 415 Unsupported Media Type");
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, ManyRangePartsAreRefused) {
  std::string ranges = "bytes=0-0";
  for (int i = 1; i < 10000; ++i) ranges += "," + std::to_string(i) + "-" + std::to_string(i);
  httplib::Client cli("127.0.0.1", c_.port());
  auto res = cli.Get("/api/v1/nodes", {{"Range", ranges}});
  ASSERT_TRUE(res);
  // A header that long is refused by the HTTP library's header cap (400); a
  // Range that fits is refused by the collector (416): 4xx either way.
  EXPECT_GE(res->status, 400);
  EXPECT_LT(res->status, 500);
  std::string some = "bytes=0-0";
  for (int i = 1; i < 100; ++i) some += "," + std::to_string(i) + "-" + std::to_string(i);
  auto fits = cli.Get("/api/v1/nodes", {{"Range", some}});
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->status, 416);
  auto one = cli.Get("/metrics", {{"Range", "bytes=0-10"}});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 416);
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, DeeplyNestedReportIs400NotACrash) {
  json r = MakeReport("deep-1", "node-a", NowMs());
  std::string text = r.dump();
  text.pop_back();  // inside the top-level object: "extra": [[[[...]]]]
  text += ",\"extra\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  ASSERT_LT(text.size(), 4u << 20);
  TestCollector big;  // default cap (4 MiB) so the depth, not the size, is what is refused
  httplib::Client cli("127.0.0.1", big.port());
  auto res = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kTestToken}}, text,
                      "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("nested deeper than 32"), std::string::npos) << res->body;
  EXPECT_EQ(big.Rows("reports"), 0);
}

TEST(Identity, ANodeTokenReportsOnlyAsItsNode) {
  ApiOptions o;
  o.tokens = {NodeToken("node-a", "token-of-node-a"), NodeToken("node-b", "token-of-node-b"), NodeToken("fleet-token-x")};
  TestCollector c(o);
  httplib::Client cli("127.0.0.1", c.port());
  auto post = [&](const std::string& report_node, const std::string& token, const std::string& id) {
    return cli.Post("/api/v1/reports", {{"Authorization", "Bearer " + token}},
                    MakeReport(id, report_node, NowMs()).dump(), "application/json");
  };
  auto spoof = post("node-b", "token-of-node-a", "spoof-1");
  ASSERT_TRUE(spoof);
  EXPECT_EQ(spoof->status, 403);
  EXPECT_NE(spoof->body.find("may report only as node node-a"), std::string::npos) << spoof->body;
  EXPECT_EQ(c.Rows("reports"), 0);
  EXPECT_EQ(c.Rows("nodes"), 0);
  auto own = post("node-a", "token-of-node-a", "own-1");
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200) << own->body;
  auto fleet = post("node-c", "fleet-token-x", "fleet-1");
  ASSERT_TRUE(fleet);
  EXPECT_EQ(fleet->status, 200) << fleet->body;
  EXPECT_EQ(c.Rows("reports"), 2);
}

TEST(ClockSkew, HttpDateRoundTrips) {
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), std::optional<int64_t>(784111777000));
  EXPECT_EQ(FormatHttpDate(784111777123), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(FormatUtcTimestamp(784111777123), "1994-11-06T08:49:37Z");
  EXPECT_FALSE(ParseHttpDate("yesterday").has_value());
  EXPECT_FALSE(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT trailing").has_value());
}

TEST(ClockSkew, DateHeaderTellsASpooledReportFromASkewedClock) {
  const int64_t now = 1'800'000'000'000;
  const int64_t tol = kDefaultClockSkewToleranceMs;
  json old = MakeReport("r", "n", now - 3600 * 1000);  // generated an hour ago, sent now: a replay
  EXPECT_FALSE(MeasureClockSkew(old, FormatHttpDate(now), now, tol).has_value());
  EXPECT_EQ(MeasureClockSkew(old, "", now, tol), std::optional<int64_t>(-3600 * 1000));  // no Date: judged by generated_at
  json fresh = MakeReport("r", "n", now);
  auto ahead = MeasureClockSkew(fresh, FormatHttpDate(now + 400 * 1000), now, tol);  // sender's clock 400 s ahead
  ASSERT_TRUE(ahead.has_value());
  EXPECT_NEAR(static_cast<double>(*ahead), 400500.0, 1.0);
  EXPECT_FALSE(MeasureClockSkew(fresh, FormatHttpDate(now + 290 * 1000), now, tol).has_value());
}

TEST(ClockSkew, ShiftMovesEveryAgentTimeAndClampsAtZero) {
  json r = {{"generated_at_ms", 10'000},
            {"probes", json::array({{{"interval_start_ms", 4'000}, {"interval_end_ms", 9'000}}})}};
  ShiftReportTimes(r, 5'000);
  EXPECT_EQ(r["generated_at_ms"], 5'000);
  EXPECT_EQ(r["probes"][0]["interval_start_ms"], 0);
  EXPECT_EQ(r["probes"][0]["interval_end_ms"], 4'000);
}

TEST(ClockSkew, ReportDatedNextYearIsRefusedAndNothingStored) {
  TestCollector c;
  httplib::Client cli("127.0.0.1", c.port());
  const int64_t next_year = NowMs() + 365LL * 86400 * 1000;
  auto res = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kTestToken}},
                      MakeReport("future-1", "node-a", next_year).dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_NE(res->body.find("check NTP"), std::string::npos) << res->body;
  EXPECT_EQ(c.Rows("reports"), 0);
  EXPECT_EQ(c.Rows("nodes"), 0);
  EXPECT_EQ(c.Rows("events"), 0);
}

// A report an hour ahead is stored at the collector's time (it cannot freeze
// the node's rows in the future) and opens a clock_skew event; the next report
// on time closes it.
TEST(ClockSkew, SkewedReportIsStoredAtReceiveTimeAndRaisesAnEvent) {
  TestCollector c;
  httplib::Client cli("127.0.0.1", c.port());
  const int64_t hour_ahead = NowMs() + 3600LL * 1000;
  auto res = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kTestToken}},
                      MakeReport("future-1", "node-a", hour_ahead).dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  auto nodes = cli.Get("/api/v1/nodes");
  ASSERT_TRUE(nodes);
  json n = json::parse(nodes->body);
  ASSERT_EQ(n["nodes"].size(), 1u) << nodes->body;
  const int64_t stored = n["nodes"][0]["last_generated_at_ms"].get<int64_t>();
  EXPECT_LT(stored, NowMs() + 60 * 1000) << "the future time was stored: " << stored;
  auto open = c.store().history.Events(true, std::string("clock_skew"), std::nullopt, 10);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open.value()["events"].size(), 1u) << open.value().dump();
  EXPECT_NE(open.value()["events"][0]["detail"].get<std::string>().find("ahead of the collector"), std::string::npos)
      << open.value().dump();

  auto ok = cli.Post("/api/v1/reports",
                     {{"Authorization", std::string("Bearer ") + kTestToken}, {"Date", HttpDateNow()}},
                     MakeReport("ontime-2", "node-a", NowMs() + 1000).dump(), "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  auto after = c.store().history.Events(true, std::string("clock_skew"), std::nullopt, 10);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after.value()["events"].size(), 0u) << after.value().dump();
}

TEST(ClockSkew, BodyTimesAheadOfTheCollectorAreShiftedWhateverTheDateSays) {
  const int64_t now = 1'800'000'000'000;
  const int64_t tol = kDefaultClockSkewToleranceMs;
  const int64_t ten_years = 3650LL * 86400 * 1000;
  json body = MakeReport("r", "n", now + ten_years);
  std::vector<ProbeInput> probes(1);
  probes[0].interval_start = now - 10'000, probes[0].interval_end = now + ten_years + 7;
  EXPECT_EQ(NewestBodyTimeMs(body, probes), now + ten_years + 7) << "the newest of every body time";
  EXPECT_EQ(NewestBodyTimeMs(json::object(), {}), INT64_MIN);
  // The Date says the clock is right: the body is moved so its newest time lands at now.
  EXPECT_FALSE(MeasureClockSkew(body, FormatHttpDate(now), now, tol).has_value());
  EXPECT_EQ(StoreShiftMs(std::nullopt, now + ten_years + 7, now, tol), ten_years + 7);
  EXPECT_EQ(StoreShiftMs(std::nullopt, now + tol, now, tol), 0) << "within tolerance: stored as sent";
  EXPECT_EQ(StoreShiftMs(std::nullopt, now - 3600 * 1000, now, tol), 0) << "a replay's old times stay";
  // A skewed clock whose body agrees with it: the skew alone.
  EXPECT_EQ(StoreShiftMs(400'000, now + 400'000, now, tol), 400'000);
  // A clock behind whose body is ahead anyway: shifted until the body is not ahead.
  EXPECT_EQ(StoreShiftMs(-400'000, now + 3600 * 1000, now, tol), 3600 * 1000);
  // Extremes do not overflow.
  EXPECT_EQ(StoreShiftMs(INT64_MAX, INT64_MIN + 1, INT64_MAX, tol), INT64_MAX);
  EXPECT_TRUE(MeasureClockSkew(json{{"generated_at_ms", INT64_MAX}}, "", INT64_MIN, tol).has_value());
  EXPECT_TRUE(MeasureClockSkew(json{{"generated_at_ms", "x"}}, "", now, tol).has_value()) << "unreadable: far behind";
}

// A body ten years ahead sent with a current Date: stored at receive time
// (nothing in the future), with a clock_skew event.
TEST(ClockSkew, BodyAheadOfACurrentDateIsStoredAtReceiveTimeWithAnEvent) {
  TestCollector c;
  httplib::Client cli("127.0.0.1", c.port());
  const int64_t ahead = NowMs() + 3650LL * 86400 * 1000;
  json r = MakeReport("future-10y", "node-a", ahead);
  r["probes"].push_back(testing::MakeProbe("node-b", ahead));
  auto res = cli.Post("/api/v1/reports",
                      {{"Authorization", std::string("Bearer ") + kTestToken}, {"Date", HttpDateNow()}}, r.dump(),
                      "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  auto open = c.store().history.Events(true, std::string("clock_skew"), std::nullopt, 10);
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open.value()["events"].size(), 1u) << open.value().dump();
  auto db = Db::OpenReadOnly(c.store().db.path());
  ASSERT_TRUE(db.ok()) << db.status().message();
  const int64_t limit = NowMs() + 60 * 1000;
  for (const char* sql : {"SELECT MAX(interval_end) FROM probe_summaries", "SELECT MAX(generated_at) FROM reports",
                          "SELECT MAX(last_generated_at) FROM nodes"}) {
    auto q = db.value().Prepare(sql);
    ASSERT_TRUE(q.ok()) << sql;
    auto row = q.value().Step();
    ASSERT_TRUE(row.ok() && row.value()) << sql;
    EXPECT_LT(q.value().Int(0), limit) << sql;
  }
}

int ConnectLoopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A client that connects and sends nothing is held by the front, not by a
// worker: with one worker and no queue, other requests are still served.
TEST(HttpFront, SilentClientsDoNotHoldTheWorker) {
  ApiOptions o;
  o.http_workers = 1;
  o.http_max_queued = 0;
  TestCollector c(o);
  int silent[8];
  for (int& fd : silent) ASSERT_GE(fd = ConnectLoopback(c.port()), 0);
  httplib::Client cli("127.0.0.1", c.port());
  auto res = cli.Get("/healthz");
  for (int fd : silent) ::close(fd);
  ASSERT_TRUE(res) << "no answer while silent clients were connected";
  EXPECT_EQ(res->status, 200);
}

// A request whose body never comes holds the only worker; the next request is
// answered 503 at once rather than waiting for it, and the collector serves
// again once the slow client is gone.
TEST(HttpFront, SaturatedCollectorAnswers503) {
  ApiOptions o;
  o.http_workers = 1;
  o.http_max_queued = 0;
  o.http_timeout_s = 20;
  TestCollector c(o);
  int fd = ConnectLoopback(c.port());
  ASSERT_GE(fd, 0);
  const std::string head = std::string("POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ") +
                           kTestToken + "\r\nContent-Length: 1000\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  // The worker has it once a second request is refused; until then it may still be queued.
  std::string status;
  double waited = 0;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       status != "HTTP/1.1 503 Service Unavailable" && std::chrono::steady_clock::now() < deadline;) {
    auto t0 = std::chrono::steady_clock::now();
    status = RawRequest(c.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 0);
    waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  ::close(fd);
  EXPECT_EQ(status, "HTTP/1.1 503 Service Unavailable") << "after " << waited << " s";
  EXPECT_LT(waited, 10.0) << "the refusal waited for the busy worker";
  httplib::Client cli("127.0.0.1", c.port());
  bool served = false;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
       !served && std::chrono::steady_clock::now() < deadline;) {
    auto res = cli.Get("/healthz");
    served = res && res->status == 200;
  }
  EXPECT_TRUE(served) << "the collector did not serve again once the slow client left";
}

TEST(RequestGuard, NestingCountsBracketsOutsideStringsOnly) {
  EXPECT_FALSE(JsonNestingExceeds(R"({"a":[1,{"b":"[[[[[[["}]})", 3));
  EXPECT_TRUE(JsonNestingExceeds(R"({"a":[1,{"b":"x"}]})", 2));
  EXPECT_FALSE(JsonNestingExceeds(R"({"a":"\"[[[["})", 1));
}

TEST(RequestGuard, GetWithoutBodyPasses) {
  auto none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  EXPECT_FALSE(GuardRequest("GET", "/api/v1/nodes", none, 1024).has_value());
  auto zero = [](const std::string& h) -> std::optional<std::string> {
    if (h == "Content-Length") return std::string("0");
    return std::nullopt;
  };
  EXPECT_FALSE(GuardRequest("GET", "/metrics", zero, 1024).has_value());
  auto refused = GuardRequest("POST", "/api/v1/reports", zero, 1024);
  EXPECT_FALSE(refused.has_value());  // an empty report gets through to JSON validation (400 there)
}

}  // namespace
}  // namespace rdmascope::collector
