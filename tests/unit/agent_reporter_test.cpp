// Reporter against an in-process collector on 127.0.0.1: delivery, spooling
// while the collector is away, in-order exactly-once replay when it is back,
// rejected reports dropped and counted, token handling.
#include "agent/daemon/reporter.h"
#include "agent/daemon/pinglist_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "agent_test_util.h"

namespace rdmascope::agent {
namespace {

using testing::FakeCollector;
using testing::LogCapture;
using testing::TempDir;
using Clock = std::chrono::steady_clock;

std::string Report(const std::string& id) { return nlohmann::json{{"report_id", id}, {"schema_version", 1}}.dump(); }

Clock::time_point Later() { return Clock::now() + std::chrono::seconds(10); }

class ReporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    token_file_ = dir_.path() + "/token";
    std::ofstream(token_file_) << "  secret-1\n";
    auto s = Spool::Open(dir_.path() + "/spool", 1 << 20, log_.Fn());
    ASSERT_TRUE(s.ok()) << s.status().message();
    spool_ = std::move(s).value();
  }

  std::unique_ptr<Reporter> Make(const std::string& url, size_t max_replay = 50) {
    ReporterOptions o;
    o.collector = url;
    o.token_file = token_file_;
    o.connect_timeout = std::chrono::seconds(2);
    o.io_timeout = std::chrono::seconds(2);
    o.max_replay_per_cycle = max_replay;
    auto r = Reporter::Create(o, spool_.get(), log_.Fn());
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  TempDir dir_;
  LogCapture log_;
  std::string token_file_;
  std::unique_ptr<Spool> spool_;
};

TEST_F(ReporterTest, DeliveredReportIsNotSpooled) {
  FakeCollector collector;
  auto reporter = Make(collector.url());
  PostOutcome o = reporter->Submit("a1", Report("a1"), Later());
  EXPECT_EQ(o.delivery, Delivery::kDelivered);
  EXPECT_EQ(o.http_status, 200);
  EXPECT_EQ(collector.accepted(), (std::vector<std::string>{"a1"}));
  EXPECT_EQ(collector.last_auth(), "Bearer secret-1");
  EXPECT_EQ(spool_->count(), 0u);
  EXPECT_EQ(reporter->stats().delivered, 1u);
}

TEST_F(ReporterTest, PathPrefixIsKept) {
  httplib::Server server;
  std::string got_path;
  server.Post(R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    got_path = req.path;
    res.status = 200;
  });
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  auto reporter = Make("http://127.0.0.1:" + std::to_string(port) + "/rdmascope/");
  EXPECT_EQ(reporter->Submit("p", Report("p"), Later()).delivery, Delivery::kDelivered);
  auto deadline = Clock::now() + std::chrono::seconds(5);
  while (!server.is_running() && Clock::now() < deadline) std::this_thread::yield();
  server.stop();
  t.join();
  EXPECT_EQ(got_path, "/rdmascope/api/v1/reports");
}

TEST_F(ReporterTest, CollectorAwaySpoolsThenBackDrainsInOrderExactlyOnce) {
  testing::RefusingPort away;
  ASSERT_GT(away.port(), 0);
  const int port = away.port();
  auto reporter = Make(away.url());
  for (const char* id : {"s1", "s2", "s3"}) {
    PostOutcome o = reporter->Submit(id, Report(id), Later());
    EXPECT_EQ(o.delivery, Delivery::kRetry);
    EXPECT_EQ(o.http_status, 0);
    EXPECT_FALSE(o.detail.empty());
  }
  EXPECT_EQ(spool_->count(), 3u);
  EXPECT_EQ(reporter->stats().spooled, 3u);
  EXPECT_TRUE(log_.Contains("cannot deliver")) << log_.All();

  FakeCollector collector(port);
  ASSERT_EQ(collector.port(), port);
  EXPECT_EQ(reporter->Submit("s4", Report("s4"), Later()).delivery, Delivery::kDelivered);
  // The backlog first, oldest first, then the fresh report: generation order.
  EXPECT_EQ(collector.accepted(), (std::vector<std::string>{"s1", "s2", "s3", "s4"}));
  EXPECT_EQ(spool_->count(), 0u);
  EXPECT_EQ(reporter->stats().replayed, 3u);
  EXPECT_TRUE(log_.Contains("reachable again")) << log_.All();
  // Nothing is sent twice.
  EXPECT_EQ(reporter->Drain(Later()), 0u);
  EXPECT_EQ(reporter->Submit("s5", Report("s5"), Later()).delivery, Delivery::kDelivered);
  EXPECT_EQ(collector.seen(), (std::vector<std::string>{"s1", "s2", "s3", "s4", "s5"}));
}

// Two collectors sharing one database: reports go to the first while it
// takes them; when it cannot be reached, or answers 503 (its database is
// away), to the second, which then stays the current one; when neither
// takes them they are spooled.
TEST_F(ReporterTest, SeveralCollectorsTheNextTakesWhatTheFirstCannot) {
  FakeCollector first, second;
  auto reporter = Make(first.url() + ", " + second.url());
  ASSERT_TRUE(reporter);
  EXPECT_EQ(reporter->Submit("f1", Report("f1"), Later()).delivery, Delivery::kDelivered);
  EXPECT_EQ(first.accepted(), (std::vector<std::string>{"f1"}));
  EXPECT_TRUE(second.seen().empty());

  first.Respond(503, R"({"error":"database unavailable"})");
  EXPECT_EQ(reporter->Submit("f2", Report("f2"), Later()).delivery, Delivery::kDelivered);
  EXPECT_EQ(second.accepted(), (std::vector<std::string>{"f2"}));
  EXPECT_TRUE(log_.Contains("sending to collector " + second.url() + " now")) << log_.All();
  EXPECT_TRUE(log_.Contains("HTTP 503")) << log_.All();
  first.Respond(200);
  EXPECT_EQ(reporter->Submit("f3", Report("f3"), Later()).delivery, Delivery::kDelivered);
  EXPECT_EQ(second.accepted(), (std::vector<std::string>{"f2", "f3"})) << "the one that answered stays current";
  EXPECT_EQ(first.accepted(), (std::vector<std::string>{"f1"}));
  EXPECT_EQ(spool_->count(), 0u);

  second.Respond(503, R"({"error":"database unavailable"})");
  first.Respond(503, R"({"error":"database unavailable"})");
  EXPECT_EQ(reporter->Submit("f4", Report("f4"), Later()).delivery, Delivery::kRetry);
  EXPECT_EQ(spool_->count(), 1u) << "neither took it: spooled";
  first.Respond(200);
  EXPECT_EQ(reporter->Drain(Later()), 1u);
  EXPECT_EQ(first.accepted(), (std::vector<std::string>{"f1", "f4"}));
}

TEST_F(ReporterTest, SeveralCollectorsAnUnreachableOneIsPassedOver) {
  testing::RefusingPort away;
  ASSERT_GT(away.port(), 0);
  FakeCollector up;
  auto reporter = Make(away.url() + "," + up.url());
  ASSERT_TRUE(reporter);
  for (const char* id : {"u1", "u2"}) EXPECT_EQ(reporter->Submit(id, Report(id), Later()).delivery, Delivery::kDelivered);
  EXPECT_EQ(up.accepted(), (std::vector<std::string>{"u1", "u2"}));
  EXPECT_EQ(spool_->count(), 0u);
}

// The pinglist from several collectors: the first that gives one; when none
// does, the error names each collector's failure.
TEST(PinglistFailover, TheFirstCollectorThatAnswersGivesThePinglist) {
  httplib::Server down, up;
  down.Get("/api/v1/pinglist", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_content(R"({"error":"database unavailable"})", "application/json");
  });
  std::atomic<int> asked_up{0};
  up.Get("/api/v1/pinglist", [&](const httplib::Request&, httplib::Response& res) {
    ++asked_up;
    res.set_content(R"({"schema_version":1,"targets":[{"node":"peer","host":"10.0.0.2","control_port":18515}]})",
                    "application/json");
  });
  const int down_port = down.bind_to_any_port("127.0.0.1"), up_port = up.bind_to_any_port("127.0.0.1");
  std::thread t1([&] { down.listen_after_bind(); }), t2([&] { up.listen_after_bind(); });
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while ((!down.is_running() || !up.is_running()) && Clock::now() < deadline) std::this_thread::yield();
  const std::string d = "http://127.0.0.1:" + std::to_string(down_port), u = "http://127.0.0.1:" + std::to_string(up_port);
  auto client = PinglistClient::Create(d + "," + u, "", "node-a");
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto targets = client.value().Fetch();
  ASSERT_TRUE(targets.ok()) << targets.status().message();
  ASSERT_EQ(targets.value().size(), 1u);
  EXPECT_EQ(targets.value()[0].name, "peer");
  EXPECT_EQ(asked_up.load(), 1);
  up.stop();
  t2.join();
  auto none = client.value().Fetch();
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no collector gave a pinglist"), std::string::npos) << none.status().message();
  EXPECT_NE(none.status().message().find(d), std::string::npos) << none.status().message();
  EXPECT_NE(none.status().message().find(u), std::string::npos) << none.status().message();
  down.stop();
  t1.join();
}

TEST_F(ReporterTest, ServerErrorsAndThrottlingAreRetried) {
  FakeCollector collector;
  auto reporter = Make(collector.url());
  for (int status : {500, 503, 408, 429}) {
    collector.Respond(status, R"({"error":"busy"})");
    PostOutcome o = reporter->Submit("x" + std::to_string(status), Report("x" + std::to_string(status)), Later());
    EXPECT_EQ(o.delivery, Delivery::kRetry) << status;
    EXPECT_EQ(o.http_status, status);
  }
  EXPECT_EQ(spool_->count(), 4u);
  collector.Respond(200);
  EXPECT_EQ(reporter->Drain(Later()), 4u);
  EXPECT_EQ(collector.accepted(), (std::vector<std::string>{"x500", "x503", "x408", "x429"}));
}

TEST_F(ReporterTest, BadRequestIsDroppedAndCounted) {
  FakeCollector collector;
  collector.Respond(400, R"({"error":"schema_version 7 is not supported","detail":"expected 1"})");
  auto reporter = Make(collector.url());
  PostOutcome o = reporter->Submit("bad", Report("bad"), Later());
  EXPECT_EQ(o.delivery, Delivery::kRejected);
  EXPECT_EQ(o.http_status, 400);
  EXPECT_EQ(o.detail, "schema_version 7 is not supported: expected 1");
  EXPECT_EQ(spool_->count(), 0u);
  EXPECT_EQ(reporter->stats().rejected, 1u);
  EXPECT_TRUE(log_.Contains("rejected report bad (HTTP 400): schema_version 7 is not supported")) << log_.All();
}

TEST_F(ReporterTest, RejectedSpooledReportIsRemovedNotRetried) {
  ASSERT_TRUE(spool_->Put(Report("old")).ok());
  FakeCollector collector;
  collector.Respond(413, R"({"error":"too large"})");
  auto reporter = Make(collector.url());
  EXPECT_EQ(reporter->Drain(Later()), 1u);
  EXPECT_EQ(spool_->count(), 0u);
  EXPECT_EQ(reporter->stats().rejected, 1u);
  EXPECT_EQ(collector.seen(), (std::vector<std::string>{"old"}));
}

TEST_F(ReporterTest, TokenRejectedKeepsSpoolingAndRereadsTheToken) {
  FakeCollector collector;
  collector.Respond(401, R"({"error":"bad token"})");
  auto reporter = Make(collector.url());
  EXPECT_EQ(reporter->Submit("t1", Report("t1"), Later()).delivery, Delivery::kRetry);
  EXPECT_EQ(reporter->Submit("t2", Report("t2"), Later()).delivery, Delivery::kRetry);
  EXPECT_EQ(spool_->count(), 2u);
  EXPECT_TRUE(log_.Contains("token rejected (HTTP 401); check token_file " + token_file_)) << log_.All();
  // Logged once per cause, not per attempt.
  std::string all = log_.All();
  EXPECT_EQ(all.find("token rejected"), all.rfind("token rejected")) << all;

  std::ofstream(token_file_, std::ios::trunc) << "secret-2\n";
  collector.Respond(200);
  EXPECT_EQ(reporter->Submit("t3", Report("t3"), Later()).delivery, Delivery::kDelivered);
  EXPECT_EQ(collector.last_auth(), "Bearer secret-2");
  EXPECT_EQ(collector.accepted(), (std::vector<std::string>{"t1", "t2", "t3"}));
}

TEST_F(ReporterTest, DrainIsBoundedPerCall) {
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE(spool_->Put(Report("d" + std::to_string(i))).ok());
  FakeCollector collector;
  auto reporter = Make(collector.url(), /*max_replay=*/2);
  EXPECT_EQ(reporter->Drain(Later()), 2u);
  EXPECT_EQ(spool_->count(), 3u);
  EXPECT_EQ(reporter->Drain(Clock::now()), 0u);  // deadline already passed
  std::atomic<bool> stop{true};
  EXPECT_EQ(reporter->Drain(Later(), &stop), 0u);
  EXPECT_EQ(reporter->Drain(Later()), 2u);
  EXPECT_EQ(collector.accepted(), (std::vector<std::string>{"d1", "d2", "d3", "d4"}));
}

TEST_F(ReporterTest, CorruptSpoolFileIsSkipped) {
  ASSERT_TRUE(spool_->Put(Report("c1")).ok());
  ASSERT_TRUE(spool_->Put("{not json").ok());
  ASSERT_TRUE(spool_->Put(Report("c3")).ok());
  FakeCollector collector;
  auto reporter = Make(collector.url());
  reporter->Drain(Later());
  EXPECT_EQ(collector.accepted(), (std::vector<std::string>{"c1", "c3"}));
  EXPECT_EQ(spool_->count(), 0u);
  EXPECT_TRUE(log_.Contains("not a usable report")) << log_.All();
}

TEST_F(ReporterTest, CreateFailsNamingTheProblem) {
  ReporterOptions o;
  o.collector = "http://127.0.0.1:1";
  o.token_file = dir_.path() + "/missing-token";
  auto r = Reporter::Create(o, spool_.get());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("token file " + o.token_file), std::string::npos) << r.status().message();

  std::ofstream(dir_.path() + "/empty-token") << "\n \n";
  o.token_file = dir_.path() + "/empty-token";
  r = Reporter::Create(o, spool_.get());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("holds no token"), std::string::npos) << r.status().message();

  o.token_file = "";
  o.collector = "collector:80";
  r = Reporter::Create(o, spool_.get());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("collector URL"), std::string::npos) << r.status().message();
}

TEST_F(ReporterTest, NoTokenFileSendsNoAuthorization) {
  FakeCollector collector;
  ReporterOptions o;
  o.collector = collector.url();
  auto r = Reporter::Create(o, spool_.get(), log_.Fn());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->Submit("n", Report("n"), Later()).delivery, Delivery::kDelivered);
  EXPECT_EQ(collector.last_auth(), "");
}

}  // namespace
}  // namespace rdmascope::agent
