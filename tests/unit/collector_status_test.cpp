// `rdmactl status` against an in-process collector: exit codes and output.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdio>

#include "tests/collector/rdmactl_run.h"
#include "tests/collector/test_server.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::kTestToken;
using testing::MakeProbe;
using testing::MakeReport;
using testing::CliRun;
using testing::Rdmactl;
using testing::TestCollector;

constexpr int64_t kT0 = 1700000000000;

class StatusTest : public ::testing::Test {
 protected:
  static ApiOptions Options(std::atomic<int64_t>* clock) {
    ApiOptions o;
    o.now_ms = [clock] { return clock->load(); };
    o.stale_after_ms = 120 * 1000;
    return o;
  }
  void Post(const json& r) {
    httplib::Client cli("127.0.0.1", c_.port());
    auto res = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kTestToken}}, r.dump(),
                        "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
  }
  std::string Url() const { return "--collector http://127.0.0.1:" + std::to_string(c_.port()); }
  void Healthy(int64_t at) {
    json a = MakeReport("a-" + std::to_string(at), "node-a", at);
    a["probes"].push_back(MakeProbe("node-b", at));
    Post(a);
    json b = MakeReport("b-" + std::to_string(at), "node-b", at);
    b["probes"].push_back(MakeProbe("node-a", at));
    Post(b);
  }

  std::atomic<int64_t> clock_{kT0};
  TestCollector c_{Options(&clock_)};
};

TEST_F(StatusTest, AllFineIsOk) {
  Healthy(kT0);
  CliRun r = Rdmactl("status " + Url());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("RDMA OK"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node-a"), std::string::npos);
}

TEST_F(StatusTest, StaleNodeIsWarning) {
  Healthy(kT0);
  clock_ = kT0 + 10 * 60 * 1000;
  CliRun r = Rdmactl("status " + Url());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("stale"), std::string::npos) << r.out;
}

TEST_F(StatusTest, CounterOverThresholdIsWarning) {
  Post(MakeReport("a-1", "node-a", kT0, 4, 100));
  Post(MakeReport("a-2", "node-a", kT0 + 10000, 4, 200));
  CliRun r = Rdmactl("status " + Url());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("symbol_error"), std::string::npos) << r.out;
}

TEST_F(StatusTest, PortDownIsCritical) {
  Post(MakeReport("a-1", "node-a", kT0, /*state=*/1));
  CliRun r = Rdmactl("status " + Url());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("DOWN"), std::string::npos) << r.out;
}

TEST_F(StatusTest, OpenWcErrorEventIsCriticalAndJsonSaysSo) {
  json a = MakeReport("a-1", "node-a", kT0);
  a["probes"].push_back(MakeProbe("node-b", kT0, 3));
  Post(a);
  CliRun r = Rdmactl("--json status " + Url());
  EXPECT_EQ(r.code, 2) << r.out;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["status"], "CRITICAL");
  EXPECT_EQ(j["open_events"].size(), 1u);
  EXPECT_EQ(j["worst_pairs"][0]["error_count"], 3);
}

TEST(StatusUnreachable, CollectorDownIsCriticalWithMessage) {
  int port;
  {
    TestCollector c;  // take a free port, then release it
    port = c.port();
  }
  CliRun r = Rdmactl("status --collector http://127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unreachable"), std::string::npos) << r.out;
}

TEST(StatusArgs, BadArgumentIsExit2) {
  CliRun r = Rdmactl("status --bogus");
  EXPECT_EQ(r.code, 2) << r.out;
}

}  // namespace
}  // namespace rdmascope::collector
