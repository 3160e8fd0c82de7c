// Token roles over HTTP against an in-process collector: a node token writes
// only its own node's facts (no sweep, no foreign control_host) and reads only
// its own pinglist; the sweep role adds sweeps; the fleet token may do all.
// A refused report is 403 and leaves no row behind.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <string>

#include "tests/collector/test_server.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeReport;
using testing::MakeSweep;
using testing::TestCollector;

constexpr char kNodeA[] = "token-of-node-a-1";
constexpr char kSweepA[] = "token-sweep-of-a-2";
constexpr char kFleet[] = "token-of-the-fleet-3";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ApiOptions RoleOptions() {
  ApiOptions o;
  o.tokens = {NodeToken("node-a", kNodeA), NodeToken("node-s", kSweepA, true), NodeToken(kFleet)};
  return o;
}

httplib::Result Post(TestCollector& c, const std::string& token, const json& report) {
  httplib::Client cli("127.0.0.1", c.port());
  return cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + token}}, report.dump(),
                  "application/json");
}

json WithControlHost(json r, const std::string& host) {
  r["labels"]["control_host"] = host;
  return r;
}

// A report of `node` carrying a one-switch sweep.
json Sweeping(const std::string& id, const std::string& node, const std::string& switch_guid) {
  json r = MakeReport(id, node, NowMs());
  r["fabric"] = MakeSweep(switch_guid, "leaf-" + switch_guid.substr(switch_guid.size() - 2));
  return r;
}

TEST(TokenRoles, ANodeTokensSweepIsRefusedAndNothingStored) {
  TestCollector c(RoleOptions());
  auto refused = Post(c, kNodeA, Sweeping("sweep-by-node", "node-a", "0x00000000000000aa"));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403) << refused->body;
  EXPECT_NE(refused->body.find("token may not post a fabric sweep"), std::string::npos) << refused->body;
  EXPECT_NE(refused->body.find("sweep node-a TOKEN"), std::string::npos) << refused->body;
  EXPECT_EQ(c.Rows("reports"), 0);
  EXPECT_EQ(c.Rows("nodes"), 0);
  EXPECT_EQ(c.Rows("fabric_nodes"), 0);

  const struct {
    const char* token;
    json report;
    int64_t switches_after;
  } allowed[] = {
      {kSweepA, Sweeping("sweep-by-sweeper", "node-s", "0x00000000000000aa"), 1},
      {kFleet, Sweeping("sweep-by-fleet", "node-f", "0x00000000000000bb"), 2},
      {kNodeA, MakeReport("plain", "node-a", NowMs()), 2},  // no sweep: a node token's own facts
  };
  for (const auto& a : allowed) {
    auto res = Post(c, a.token, a.report);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(c.Rows("fabric_nodes"), a.switches_after) << a.report.dump().substr(0, 200);
  }
}

TEST(TokenRoles, ASweepTokenReportsOnlyAsItsNode) {
  TestCollector c(RoleOptions());
  auto res = Post(c, kSweepA, Sweeping("sweep-as-other", "node-a", "0x00000000000000aa"));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403) << res->body;
  EXPECT_NE(res->body.find("may report only as node node-s"), std::string::npos) << res->body;
  EXPECT_EQ(c.Rows("reports"), 0);
}

TEST(TokenRoles, ControlHostMustBeAnAddressOfTheNode) {
  TestCollector c(RoleOptions());
  json gid_report = MakeReport("x", "node-a", NowMs());
  // A RoCE port's IPv4-mapped GID: the node's address 192.0.2.5.
  gid_report["inventory"]["devices"][0]["ports"][0]["gids"].push_back(
      {{"index", 1}, {"gid", "0000:0000:0000:0000:0000:ffff:c000:0205"}, {"type", "RoCE v2"}, {"ndev", "eth0"}});
  struct Case {
    const char* what;
    json report;
    const char* token;
    int status;
  };
  int n = 0;
  auto id = [&n] { return "ch-" + std::to_string(++n); };
  auto with_id = [](json r, const std::string& report_id) {
    r["report_id"] = report_id;
    return r;
  };
  const Case cases[] = {
      {"its node name", WithControlHost(MakeReport(id(), "node-a", NowMs()), "node-a"), kNodeA, 200},
      {"the peer address", WithControlHost(MakeReport(id(), "node-a", NowMs()), "127.0.0.1"), kNodeA, 200},
      {"a GID of its inventory (IPv4)", with_id(WithControlHost(gid_report, "192.0.2.5"), id()), kNodeA, 200},
      {"a GID of its inventory (IPv6)", with_id(WithControlHost(gid_report, "fe80::2:c903:1:2345"), id()), kNodeA, 200},
      {"a foreign address", WithControlHost(MakeReport(id(), "node-a", NowMs()), "192.0.2.77"), kNodeA, 403},
      {"a foreign address beside its GIDs", with_id(WithControlHost(gid_report, "192.0.2.6"), id()), kNodeA, 403},
      {"a host name", WithControlHost(MakeReport(id(), "node-a", NowMs()), "victim.example"), kNodeA, 403},
      {"another node's name", WithControlHost(MakeReport(id(), "node-a", NowMs()), "node-b"), kNodeA, 403},
      {"a foreign address, fleet token", WithControlHost(MakeReport(id(), "node-f", NowMs()), "192.0.2.77"), kFleet,
       200},
  };
  int64_t stored = 0;
  for (const Case& k : cases) {
    const int64_t before = c.Rows("reports");
    auto res = Post(c, k.token, k.report);
    ASSERT_TRUE(res) << k.what;
    EXPECT_EQ(res->status, k.status) << k.what << ": " << res->body;
    if (k.status == 403) {
      EXPECT_NE(res->body.find("control_host not an address of this node"), std::string::npos) << res->body;
      EXPECT_EQ(c.Rows("reports"), before) << k.what;
    } else {
      ++stored;
    }
  }
  EXPECT_EQ(c.Rows("reports"), stored);
}

TEST(TokenRoles, ANodeTokenReadsOnlyItsOwnPinglist) {
  ApiOptions o = RoleOptions();
  o.read_tokens = {NodeToken("reader-token-9")};
  TestCollector c(o);
  ASSERT_EQ(Post(c, kNodeA, MakeReport("a1", "node-a", NowMs()))->status, 200);
  ASSERT_EQ(Post(c, kFleet, MakeReport("b1", "node-b", NowMs()))->status, 200);
  httplib::Client cli("127.0.0.1", c.port());
  auto get = [&](const std::string& node, const std::string& token) {
    return cli.Get(("/api/v1/pinglist?node=" + node).c_str(), {{"Authorization", "Bearer " + token}});
  };
  auto own = get("node-a", kNodeA);
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200) << own->body;
  auto other = get("node-b", kNodeA);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 403) << other->body;
  EXPECT_NE(other->body.find("reads only the pinglist of node node-a"), std::string::npos) << other->body;
  EXPECT_EQ(other->body.find("node-b\",\"same_group"), std::string::npos);
  auto fleet = get("node-b", kFleet);
  ASSERT_TRUE(fleet);
  EXPECT_EQ(fleet->status, 200) << fleet->body;
  auto reader = get("node-b", "reader-token-9");
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->status, 200) << reader->body;
}

}  // namespace
}  // namespace rdmascope::collector
