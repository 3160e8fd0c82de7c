// The collector daemon over HTTPS with a read token: the agent's reporter and
// pinglist client and `rdmactl status` reach it with --ca-file, a wrong CA is
// refused with a message that says what to check, plain HTTP gets no answer,
// reading needs a read token (Bearer or Basic) while /healthz stays open.
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <string>

#include "agent/client/collector_client.h"
#include "agent/daemon/pinglist_client.h"
#include "agent/daemon/reporter.h"
#include "agent/daemon/spool.h"
#include "tests/collector/child_collector.h"
#include "tests/support/run_command.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::ChildCollector;

constexpr char kReportToken[] = "report-token-0123";
constexpr char kReadToken[] = "read-token-4567";
const std::string kTls = std::string(RDMASCOPE_FIXTURES_DIR) + "/tls";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class AccessTest : public ::testing::Test {
 protected:
  testsupport::ScratchDir scratch_{"collector_access_test"};
  void SetUp() override {
    dir_ = scratch_.path();
    std::ofstream(dir_ + "/tokens") << "node-a " << kReportToken << "\n";
    std::ofstream(dir_ + "/read.tokens") << "* " << kReadToken << "\n";
    std::ofstream(dir_ + "/agent.token") << kReportToken << "\n";
    std::ofstream(dir_ + "/read.token") << kReadToken << "\n";
  }
  void TearDown() override {
    child_.Stop(5000);
  }
  // Starts the collector over HTTPS with read tokens; returns its https URL.
  std::string StartTls() {
    std::string why;
    port_ = child_.Start(COLLECTOR_PATH,
                         {"--db", dir_ + "/c.db", "--token-file", dir_ + "/tokens", "--read-token-file",
                          dir_ + "/read.tokens", "--tls-cert", kTls + "/collector.crt", "--tls-key",
                          kTls + "/collector.key"},
                         dir_ + "/log", 10000, &why);
    EXPECT_GT(port_, 0) << why;
    return "https://127.0.0.1:" + std::to_string(port_);
  }
  std::unique_ptr<agent::Reporter> MakeReporter(const std::string& url, const std::string& ca) {
    auto spool = agent::Spool::Open(dir_ + "/spool", 1 << 20);
    EXPECT_TRUE(spool.ok()) << spool.status().message();
    spool_ = std::move(spool).value();
    agent::ReporterOptions o;
    o.collector = url;
    o.token_file = dir_ + "/agent.token";
    o.ca_file = ca;
    auto r = agent::Reporter::Create(o, spool_.get());
    EXPECT_TRUE(r.ok()) << r.status().message();
    return std::move(r).value();
  }
  int Get(const std::string& path, const httplib::Headers& headers = {}) {
    auto cli = client::MakeCollectorClient("https://127.0.0.1:" + std::to_string(port_), kTls + "/ca.crt");
    auto res = cli->Get(path.c_str(), headers);
    EXPECT_TRUE(res) << path << ": " << client::DescribeHttpError(res.error(), kTls + "/ca.crt");
    if (res && res->status == 401) {
      EXPECT_NE(res->get_header_value("WWW-Authenticate").find("Basic"), std::string::npos) << path;
    }
    return res ? res->status : 0;
  }

  std::string dir_;
  ChildCollector child_;
  int port_ = -1;
  std::unique_ptr<agent::Spool> spool_;
};

TEST_F(AccessTest, AgentReportsOverHttpsWithItsCaAndIsRefusedWithAnother) {
  const std::string url = StartTls();
  ASSERT_GT(port_, 0);
  const std::string body = testing::MakeReport("tls-1", "node-a", NowMs()).dump();

  auto good = MakeReporter(url, kTls + "/ca.crt");
  agent::PostOutcome ok = good->Post(body);
  EXPECT_EQ(ok.http_status, 200) << ok.detail;
  EXPECT_EQ(ok.delivery, agent::Delivery::kDelivered);

  auto wrong = MakeReporter(url, kTls + "/other-ca.crt");
  agent::PostOutcome refused = wrong->Post(testing::MakeReport("tls-2", "node-a", NowMs()).dump());
  EXPECT_EQ(refused.http_status, 0);
  EXPECT_EQ(refused.delivery, agent::Delivery::kRetry);
  EXPECT_NE(refused.detail.find("not trusted"), std::string::npos) << refused.detail;
  EXPECT_NE(refused.detail.find("other-ca.crt"), std::string::npos) << refused.detail;

  // Plain HTTP to the HTTPS port gets no HTTP answer.
  httplib::Client plain("127.0.0.1", port_);
  plain.set_read_timeout(5, 0);
  auto res = plain.Get("/healthz");
  EXPECT_TRUE(!res || res->status != 200);

  // Only the first report was stored.
  httplib::Headers read = {{"Authorization", std::string("Bearer ") + kReadToken}};
  auto cli = client::MakeCollectorClient(url, kTls + "/ca.crt");
  auto nodes = cli->Get("/api/v1/nodes", read);
  ASSERT_TRUE(nodes);
  ASSERT_EQ(nodes->status, 200) << nodes->body;
  json j = json::parse(nodes->body);
  ASSERT_EQ(j["nodes"].size(), 1u) << nodes->body;
  EXPECT_EQ(j["nodes"][0]["name"], "node-a");
}

TEST_F(AccessTest, ReadingNeedsAReadTokenButHealthAndPinglistDoNot) {
  StartTls();
  ASSERT_GT(port_, 0);
  EXPECT_EQ(Get("/healthz"), 200);
  EXPECT_EQ(Get("/api/v1/nodes"), 401);
  EXPECT_EQ(Get("/metrics"), 401);
  EXPECT_EQ(Get("/"), 401);
  EXPECT_EQ(Get("/api/v1/nodes", {{"Authorization", std::string("Bearer ") + kReportToken}}), 401);
  EXPECT_EQ(Get("/api/v1/nodes", {{"Authorization", "Bearer wrong-token-000"}}), 401);
  EXPECT_EQ(Get("/api/v1/nodes", {{"Authorization", std::string("Bearer ") + kReadToken}}), 200);
  EXPECT_EQ(Get("/metrics", {{"Authorization", std::string("Bearer ") + kReadToken}}), 200);
  // A browser login: any user name, the token as password.
  EXPECT_EQ(Get("/", {httplib::make_basic_authentication_header("operator", kReadToken)}), 200);
  EXPECT_EQ(Get("/api/v1/nodes", {httplib::make_basic_authentication_header("operator", "nope1234")}), 401);

  // The agent fetches its pinglist with its report token, over HTTPS.
  auto pinglist =
      agent::PinglistClient::Create("https://127.0.0.1:" + std::to_string(port_), dir_ + "/agent.token", "node-a",
                                    kTls + "/ca.crt");
  ASSERT_TRUE(pinglist.ok()) << pinglist.status().message();
  auto targets = pinglist.value().Fetch();
  EXPECT_TRUE(targets.ok()) << targets.status().message();
}

TEST_F(AccessTest, RdmactlStatusOverHttpsWithReadToken) {
  const std::string url = StartTls();
  ASSERT_GT(port_, 0);
  auto with_token = testsupport::RunCommand(
      {RDMACTL_PATH, "status", "--collector", url, "--ca-file", kTls + "/ca.crt", "--token-file", dir_ + "/read.token"},
      30000);
  // No node known yet: WARNING (exit 1), but the collector answered.
  EXPECT_EQ(with_token.exit_code, 1) << with_token.out << with_token.err;
  EXPECT_NE(with_token.out.find("0 node(s)"), std::string::npos) << with_token.out;

  auto without = testsupport::RunCommand({RDMACTL_PATH, "status", "--collector", url, "--ca-file", kTls + "/ca.crt"},
                                         30000);
  EXPECT_EQ(without.exit_code, 2);
  EXPECT_NE(without.out.find("read token"), std::string::npos) << without.out;

  auto untrusted = testsupport::RunCommand({RDMACTL_PATH, "status", "--collector", url, "--ca-file",
                                            kTls + "/other-ca.crt", "--token-file", dir_ + "/read.token"},
                                           30000);
  EXPECT_EQ(untrusted.exit_code, 2);
  EXPECT_NE(untrusted.out.find("not trusted"), std::string::npos) << untrusted.out;
}

TEST_F(AccessTest, AKeyThatDoesNotLoadStopsTheStartWithTheFileNames) {
  std::ofstream(dir_ + "/bad.key") << "not a key\n";
  auto r = testsupport::RunCommand({COLLECTOR_PATH, "--listen", "127.0.0.1:0", "--db", dir_ + "/c.db", "--no-auth",
                                    "--tls-cert", kTls + "/collector.crt", "--tls-key", dir_ + "/bad.key"},
                                   30000);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.key"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("collector.crt"), std::string::npos) << r.err;

  auto half = testsupport::RunCommand({COLLECTOR_PATH, "--no-auth", "--tls-cert", kTls + "/collector.crt"}, 30000);
  EXPECT_EQ(half.exit_code, 2);
  EXPECT_NE(half.err.find("--tls-key"), std::string::npos) << half.err;
}

}  // namespace
}  // namespace rdmascope::collector
