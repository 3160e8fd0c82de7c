// ud_info at the limits: 64 endpoints with every field at its longest still
// reach the prober in full; the line limit is enforced on both sides with
// the error naming it (the agent refusing a line past it, a prober reading
// an older agent's one-line list past it), and a line exactly at it passes;
// an older prober's only page holds every port's IPv4-mapped GID.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "probes/control_protocol.h"
#include "probes/control_server.h"
#include "probes/line_socket.h"
#include "probes/local_port.h"
#include "probes/probe_clock.h"
#include "probes/prober.h"
#include "tests/unit/ud_info_fixture.h"

namespace rdmascope::probes {
namespace {

// The fixture's 64 endpoints with every field as long as an agent sends it:
// 64-character device and rail names (the agent's bound on both), GIDs of
// eight full groups, the largest port, GID index, LID and QPN.
UdInfoReply LongestSixtyFourEndpoints() {
  UdInfoReply r = SixtyFourEndpoints();
  for (size_t i = 0; i < r.endpoints.size(); ++i) {
    UdEndpointInfo& e = r.endpoints[i];
    const std::string n = std::to_string(100 + i);  // three digits: names stay distinct and 64 long
    e.device = "mlx5_bond_" + std::string(64 - 10 - 3, 'd') + n;
    e.rail = "rail-" + std::string(64 - 5 - 3, 'r') + n;
    e.gid = "fd12:3456:789a:ffff:ffff:ffff:ffff:f" + n;  // inet_ntop form, 39 characters
    e.port = 255;
    e.gid_index = int(255 - i);
    e.lid = 0xffff;
    e.qpn = 0xffffff - uint32_t(i);
  }
  return r;
}

TEST(UdInfoLimits, SixtyFourLongestEndpointsReachTheProberInFull) {
  const UdInfoReply want = LongestSixtyFourEndpoints();
  ASSERT_EQ(want.endpoints[0].device.size(), 64u);
  ASSERT_EQ(want.endpoints[0].rail.size(), 64u);
  ASSERT_EQ(want.endpoints[0].gid.size(), 39u);
  // In one line they would need more than three times the limit.
  EXPECT_GT(EncodeUdInfoReply(want).size(), 3 * kMaxLineBytes);
  for (const std::string secret : {"", "fleet-secret"}) {
    FixtureAgent agent;
    agent.secret = secret;
    agent.make = [want](int) { return want; };
    agent.Start();
    LineConn c = Connect(agent.port());
    // The prober's reader refuses any line past kMaxLineBytes: all 64 arriving
    // means every page fitted.
    auto info = FetchUdInfo(c, NowNs() + 5 * kSecond, secret, true);
    ASSERT_TRUE(info.ok()) << (secret.empty() ? "no secret: " : "secret: ") << info.status().message();
    ExpectSameEndpoints(info->endpoints, want.endpoints);
    EXPECT_EQ(info->total, std::optional<size_t>(64));
  }
}

// The agent's bound: a line one byte past the limit is refused by name and
// closes the connection; a request exactly at the limit is served.
TEST(UdInfoLimits, TheAgentRefusesALinePastTheLimitByName) {
  FixtureAgent agent;
  agent.Start();
  const std::string head = R"({"op":"ud_info","pad":")";
  const std::string at_limit = head + std::string(kMaxLineBytes - head.size() - 2, 'x') + "\"}";
  ASSERT_EQ(at_limit.size(), kMaxLineBytes);
  {
    LineConn c = Connect(agent.port());
    ASSERT_TRUE(c.WriteLine(at_limit, NowNs() + kSecond).ok());
    auto line = c.ReadLine(NowNs() + 3 * kSecond);
    ASSERT_TRUE(line.ok()) << line.status().message();
    auto page = ParseUdInfoReply(*line);
    ASSERT_TRUE(page.ok()) << page.status().message();
    EXPECT_EQ(page->total, std::optional<size_t>(64));
  }
  LineConn c = Connect(agent.port());
  ASSERT_TRUE(c.WriteLine(at_limit + " ", NowNs() + kSecond).ok());
  auto line = c.ReadLine(NowNs() + 3 * kSecond);
  ASSERT_TRUE(line.ok()) << line.status().message();
  auto refused = ParseUdInfoReply(*line);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), std::string("peer refused: ") + kLineTooLong + " (the limit is " +
                                            std::to_string(kMaxLineBytes) + " bytes): connection closed");
  EXPECT_FALSE(c.ReadLine(NowNs() + 3 * kSecond).ok()) << "the connection ends after the refusal";
}

// An agent older than paging with 64 endpoints answers one line far past the
// limit: the prober stops reading at the limit and says what it met and what
// to do, as it failed before paging (not worse, and now named).
TEST(UdInfoLimits, AnOlderAgentsOverlongListIsRefusedByName) {
  const std::string one_line = EncodeUdInfoReply(SixtyFourEndpoints());
  ASSERT_GT(one_line.size(), kMaxLineBytes);
  auto s = ControlServer::Start(0, [&](LineConn& c, const std::atomic<bool>& stop) {
    if (c.ReadLine(NowNs() + 3 * kSecond, &stop).ok()) c.WriteLine(one_line, NowNs() + kSecond);
  }, {"127.0.0.1"});
  ASSERT_TRUE(s.ok()) << s.status().message();
  LineConn c = Connect((*s)->port());
  auto info = FetchUdInfo(c, NowNs() + 5 * kSecond);
  ASSERT_FALSE(info.ok());
  const std::string& m = info.status().message();
  EXPECT_NE(m.find(std::string("ud_info from 0): ") + kLineTooLong), std::string::npos) << m;
  EXPECT_NE(m.find("older than paged ud_info"), std::string::npos) << m;
}

// An older prober asks once and reads one page. The agent lists every port's
// IPv4-mapped GID first, so that page holds all 16 ports' (the GIDs probers
// choose), and a rail on the node's last port is still found there.
TEST(UdInfoLimits, AnOlderProbersOnlyPageHoldsEveryPortsMappedGid) {
  UdInfoReply listed = SixtyFourEndpoints();
  OrderUdEndpoints(listed.endpoints);
  const UdInfoReply given = SixtyFourEndpoints();
  std::vector<UdEndpointInfo> mapped, others;
  for (const auto& e : given.endpoints) (e.gid.rfind("::ffff:", 0) == 0 ? mapped : others).push_back(e);
  ASSERT_EQ(mapped.size(), 16u);
  mapped.insert(mapped.end(), others.begin(), others.end());
  ExpectSameEndpoints(listed.endpoints, mapped);  // mapped first, each group in the order given

  FixtureAgent agent;
  agent.make = [listed](int) { return listed; };
  agent.Start();
  LineConn c = Connect(agent.port());
  ASSERT_TRUE(c.WriteLine(R"({"op":"ud_info"})", NowNs() + kSecond).ok());
  auto line = c.ReadLine(NowNs() + 3 * kSecond);
  ASSERT_TRUE(line.ok()) << line.status().message();
  auto page = ParseUdInfoReply(*line);
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_LT(page->endpoints.size(), 64u);
  ASSERT_GE(page->endpoints.size(), 16u);
  LocalPort local;
  local.roce = true;
  auto chosen = ChooseEndpoint(*page, "10.20.0.99", local, "rail15");
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  EXPECT_EQ(chosen->gid, "::ffff:10.20.15.17");
}

}  // namespace
}  // namespace rdmascope::probes
