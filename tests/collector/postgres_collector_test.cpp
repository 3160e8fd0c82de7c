// rdmascope-collector on PostgreSQL: --db postgresql://... with
// --db-password-file against a real server started for the test. A report
// posted is stored, answered by the API and /metrics, and still there after
// a restart (the read model loaded back from the database); the password
// shows nowhere in the log; a wrong password stops the start with an error
// naming the server; while the server is down reports get 503 with
// Retry-After, and once it is back the collector connects again by itself.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "collector/store/pg_db.h"
#include "tests/collector/child_collector.h"
#include "tests/support/postgres_server.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::ChildCollector;
using testing::MakeProbe;
using testing::MakeReport;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

json NodesOf(int port) {
  httplib::Client cli("127.0.0.1", port);
  auto res = cli.Get("/api/v1/nodes");
  if (!res || res->status != 200) return json();
  return json::parse(res->body, nullptr, false);
}

TEST(PostgresCollector, StoresServesAndReloadsAReport) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  testsupport::ScratchDir dir("postgres_collector_test");
  const std::vector<std::string> args = {"--db", pg->Url(), "--db-password-file", pg->password_file(), "--no-auth"};
  ChildCollector first;
  std::string why;
  int port = first.Start(COLLECTOR_PATH, args, dir.File("log1"), 30000, &why);
  ASSERT_GT(port, 0) << why;

  const int64_t t = NowMs();
  json r = MakeReport("pg-1", "node-pg", t);
  r["probes"].push_back(MakeProbe("node-b", t));
  r["probes"].push_back(MakeProbe("node-c", t, 1));
  httplib::Client cli("127.0.0.1", port);
  auto posted = cli.Post("/api/v1/reports", r.dump(), "application/json");
  ASSERT_TRUE(posted) << "no answer";
  ASSERT_EQ(posted->status, 200) << posted->body;
  auto again = cli.Post("/api/v1/reports", r.dump(), "application/json");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
  EXPECT_NE(again->body.find("duplicate"), std::string::npos) << "the same report id is stored once: " << again->body;

  json nodes = NodesOf(port);
  ASSERT_TRUE(nodes.is_object()) << "GET /api/v1/nodes failed";
  ASSERT_EQ(nodes["nodes"].size(), 1u) << nodes.dump();
  EXPECT_EQ(nodes["nodes"][0]["name"], "node-pg");
  auto metrics = cli.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("node=\"node-pg\""), std::string::npos);
  auto probes = cli.Get("/api/v1/probes?src=node-pg");
  ASSERT_TRUE(probes);
  ASSERT_EQ(probes->status, 200) << probes->body;
  EXPECT_EQ(json::parse(probes->body)["probes"].size(), 2u) << probes->body;

  first.Stop(10000);
  EXPECT_TRUE(WIFEXITED(first.exit_status()) && WEXITSTATUS(first.exit_status()) == 0) << first.Log();
  const std::string log = first.Log();
  EXPECT_EQ(log.find(pg->password()), std::string::npos) << "the password must not be logged";
  EXPECT_NE(log.find("database postgresql://"), std::string::npos) << log;

  ChildCollector second;
  port = second.Start(COLLECTOR_PATH, args, dir.File("log2"), 30000, &why);
  ASSERT_GT(port, 0) << why;
  nodes = NodesOf(port);
  ASSERT_TRUE(nodes.is_object());
  ASSERT_EQ(nodes["nodes"].size(), 1u) << "the restarted collector loads its state from PostgreSQL: " << nodes.dump();
  EXPECT_EQ(nodes["nodes"][0]["name"], "node-pg");
}

TEST(PostgresCollector, AnOutageIs503AndTheCollectorConnectsAgain) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  testsupport::ScratchDir dir("postgres_collector_test");
  ChildCollector child;
  std::string why;
  const int port = child.Start(
      COLLECTOR_PATH, {"--db", pg->Url(), "--db-password-file", pg->password_file(), "--no-auth"}, dir.File("log"),
      30000, &why);
  ASSERT_GT(port, 0) << why;
  httplib::Client cli("127.0.0.1", port);
  const int64_t t = NowMs();
  auto report = [&](const std::string& id) {
    json r = MakeReport(id, "node-pg", t);
    r["probes"].push_back(MakeProbe("node-b", t));
    return r.dump();
  };
  auto before = cli.Post("/api/v1/reports", report("before"), "application/json");
  ASSERT_TRUE(before);
  ASSERT_EQ(before->status, 200) << before->body;

  ASSERT_EQ(pg->Pause(), "");
  auto during = cli.Post("/api/v1/reports", report("during"), "application/json");
  ASSERT_TRUE(during) << "the collector answers while its database is down";
  EXPECT_EQ(during->status, 503) << during->body;
  EXPECT_EQ(during->get_header_value("Retry-After"), "30");
  EXPECT_NE(during->body.find("cannot be reached"), std::string::npos) << during->body;
  auto health = cli.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 503) << health->body;

  // While the server is away the writer's attempts to connect again back
  // off (PgDb::Begin): a retry soon after it returns may still get 503; the
  // agent's retries (here every 100 ms) get 200 within the longest wait.
  ASSERT_EQ(pg->Resume(), "");
  const auto resumed = std::chrono::steady_clock::now();
  int status = 0, retries = 0;
  std::string body;
  while (std::chrono::steady_clock::now() - resumed <
         std::chrono::milliseconds(PgDb::kReconnectMaxBackoffMs + 5000)) {
    auto after = cli.Post("/api/v1/reports", report("during"), "application/json");  // the agent's retry
    ASSERT_TRUE(after);
    status = after->status, body = after->body;
    ++retries;
    if (status != 503) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, 200) << "the writer connects again at a transaction after its wait: " << body;
  std::printf("the report was stored %.0f ms after the server returned, at retry %d\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - resumed).count(), retries);
  auto probes = cli.Get("/api/v1/probes?src=node-pg");
  ASSERT_TRUE(probes);
  ASSERT_EQ(probes->status, 200) << "a read on a pooled connection the restart dropped runs again: " << probes->body;
  EXPECT_EQ(json::parse(probes->body)["probes"].size(), 2u) << probes->body;
  health = cli.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200) << health->body;
}

// Two collectors on one database: one leads (runs diagnosis, rollups and
// retention), the other does not; killed with SIGKILL, the leader lets the
// lock go with its connection and the other leads within one diagnosis
// interval (1 s here).
TEST(PostgresCollector, OneOfTwoCollectorsLeadsAndTheOtherTakesOverWhenItDies) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  testsupport::ScratchDir dir("postgres_collector_test");
  const std::vector<std::string> args = {"--db", pg->Url(), "--db-password-file", pg->password_file(), "--no-auth",
                                         "--diagnosis-interval-s", "1"};
  ChildCollector a, b;
  std::string why;
  const int port_a = a.Start(COLLECTOR_PATH, args, dir.File("log-a"), 30000, &why);
  ASSERT_GT(port_a, 0) << why;
  const int port_b = b.Start(COLLECTOR_PATH, args, dir.File("log-b"), 30000, &why);
  ASSERT_GT(port_b, 0) << why;
  // What a collector's /metrics says of its lead: "1", "0", or "" when absent.
  auto leader_gauge = [](int port) -> std::string {
    httplib::Client cli("127.0.0.1", port);
    auto m = cli.Get("/metrics");
    if (!m) return "no answer";
    const std::string key = "\nrdmascope_collector_leader ";
    const size_t at = m->body.find(key);
    return at == std::string::npos ? "" : m->body.substr(at + key.size(), 1);
  };
  constexpr char kLeading[] = "leading: this collector runs diagnosis";
  auto leads = [&](ChildCollector& c) { return c.Log().find(kLeading) != std::string::npos; };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!leads(a) && !leads(b) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Both have ticked a few times by now: the one that leads is alone.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ASSERT_NE(leads(a), leads(b)) << "exactly one collector leads; a: " << a.Log() << "\nb: " << b.Log();
  ChildCollector& leader = leads(a) ? a : b;
  ChildCollector& other = leads(a) ? b : a;
  std::printf("before: collector %s (pid %d) leads\n", &leader == &a ? "a" : "b", static_cast<int>(leader.pid()));
  const int leader_port = &leader == &a ? port_a : port_b, other_port = &leader == &a ? port_b : port_a;
  EXPECT_EQ(leader_gauge(leader_port), "1") << "the leader's /metrics says it leads";
  EXPECT_EQ(leader_gauge(other_port), "0") << "the other's /metrics says it does not";

  leader.Kill(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  deadline = killed + std::chrono::seconds(20);
  while (!leads(other) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const double took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - killed).count();
  ASSERT_TRUE(leads(other)) << "the other collector did not take the lead: " << other.Log();
  std::printf("after: collector %s (pid %d) leads, %.0f ms after collector %s was killed (SIGKILL)\n",
              &other == &a ? "a" : "b", static_cast<int>(other.pid()), took_ms, &leader == &a ? "a" : "b");
  EXPECT_LT(took_ms, 2000) << "the lead moves within one diagnosis interval (1 s) and a tick's slack";
  // The gauge is set as Lead() returns, just after the log line.
  std::string gauge;
  for (deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
       (gauge = leader_gauge(other_port)) != "1" && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(gauge, "1") << "the new leader's /metrics says it leads";
  other.Stop(10000);
}

// Two collectors on one database: a report posted to one shows in the
// other's read model (nodes, /metrics' probe series) once that commit is
// followed (LISTEN/NOTIFY), and a collector started later loads it whole.
TEST(PostgresCollector, AReportPostedToOneCollectorShowsInTheOthersReadModel) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  testsupport::ScratchDir dir("postgres_collector_test");
  const std::vector<std::string> args = {"--db", pg->Url(), "--db-password-file", pg->password_file(), "--no-auth"};
  ChildCollector a, b;
  std::string why;
  const int port_a = a.Start(COLLECTOR_PATH, args, dir.File("log-a"), 30000, &why);
  ASSERT_GT(port_a, 0) << why;
  const int port_b = b.Start(COLLECTOR_PATH, args, dir.File("log-b"), 30000, &why);
  ASSERT_GT(port_b, 0) << why;
  httplib::Client to_a("127.0.0.1", port_a), from_b("127.0.0.1", port_b);
  // B's follower listens once it started: a report posted before that is in
  // the model B rebuilds when it starts listening; wait for both anyway.
  for (int k = 0; k < 2; ++k) {
    const int64_t t = NowMs();
    const std::string node = "node-" + std::to_string(k);
    json r = MakeReport("follow-" + std::to_string(k), node, t);
    r["probes"].push_back(MakeProbe("node-x", t));
    const auto posted_at = std::chrono::steady_clock::now();
    auto posted = to_a.Post("/api/v1/reports", r.dump(), "application/json");
    ASSERT_TRUE(posted);
    ASSERT_EQ(posted->status, 200) << posted->body;
    bool seen = false;
    std::string metrics;
    const auto deadline = posted_at + std::chrono::seconds(10);
    while (!seen && std::chrono::steady_clock::now() < deadline) {
      json nodes = NodesOf(port_b);
      bool listed = false;
      if (nodes.is_object())
        for (const json& n : nodes["nodes"]) listed = listed || n["name"] == node;
      if (listed) {
        auto m = from_b.Get("/metrics");
        metrics = m ? m->body : "";
        seen = metrics.find("rdmascope_probe_loss_ratio{node=\"" + node + "\"") != std::string::npos;
      }
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(seen) << node << " posted to collector a is not in collector b's read model; b's log: " << b.Log();
    std::printf("%s posted to collector a: in collector b's nodes and /metrics %.0f ms later\n", node.c_str(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - posted_at).count());
  }
  // A newer report of a node B holds: its rows replace the older ones in B's model.
  {
    const int64_t t = NowMs() + 10000;
    json r = MakeReport("follow-again", "node-0", t);
    r["probes"].push_back(MakeProbe("node-x", t, 0, 60));
    auto posted = to_a.Post("/api/v1/reports", r.dump(), "application/json");
    ASSERT_TRUE(posted);
    ASSERT_EQ(posted->status, 200) << posted->body;
    const std::string prefix = "rdmascope_probe_loss_ratio{node=\"node-0\"";
    bool seen = false;
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!seen && std::chrono::steady_clock::now() < deadline) {
      auto m = from_b.Get("/metrics");
      const std::string metrics = m ? m->body : "";
      const size_t at = metrics.find(prefix);
      line = at == std::string::npos ? "" : metrics.substr(at, metrics.find('\n', at) - at);
      seen = line.size() > 4 && line.compare(line.size() - 4, 4, " 0.4") == 0;
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(seen) << "node-0's newer report (40 % loss) is not in collector b's /metrics: " << line;
  }
  EXPECT_EQ(b.Log().find("following the other collectors' commits:"), std::string::npos) << b.Log();
}

TEST(PostgresCollector, AWrongPasswordStopsTheStartNamingTheServer) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  testsupport::ScratchDir dir("postgres_collector_test");
  std::ofstream(dir.File("wrong")) << "not-the-password\n";
  ChildCollector child;
  std::string why;
  const int port = child.Start(COLLECTOR_PATH, {"--db", pg->Url(), "--db-password-file", dir.File("wrong"), "--no-auth"},
                               dir.File("log"), 30000, &why);
  EXPECT_EQ(port, -1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (child.Running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(child.Running());
  EXPECT_NE(WEXITSTATUS(child.exit_status()), 0);
  const std::string log = child.Log();
  EXPECT_NE(log.find("127.0.0.1:" + std::to_string(pg->port())), std::string::npos) << log;
  EXPECT_NE(log.find("password"), std::string::npos) << "says what to check: " << log;
  EXPECT_EQ(log.find("not-the-password"), std::string::npos) << log;
}

}  // namespace
}  // namespace rdmascope::collector
