// ud_info in pages: a responder-side control server serving 64 endpoints
// (a fixture through ControlServices, no device) answers the probers' real
// client code (FetchUdInfo for UD, ExchangeRcSetup for RC) in full, every line
// within kMaxLineBytes, with and without the fleet secret; older peers on
// either side still work; bad paging is refused; the RC path's replies fit.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "probes/control_auth.h"
#include "probes/control_protocol.h"
#include "probes/control_seal.h"
#include "probes/control_server.h"
#include "probes/control_session.h"
#include "probes/line_socket.h"
#include "probes/local_port.h"
#include "probes/probe_clock.h"
#include "probes/prober.h"
#include "probes/rc_peer.h"
#include "tests/unit/control_test_support.h"
#include "tests/unit/ud_info_fixture.h"

namespace rdmascope::probes {
namespace {

TEST(UdInfoPages, TheFixtureWouldNotFitOneLine) {
  // Why paging: the whole list in one line is twice the limit.
  EXPECT_GT(EncodeUdInfoReply(SixtyFourEndpoints()).size(), kMaxLineBytes);
}

TEST(UdInfoPages, SixtyFourEndpointsReachTheProberInFull) {
  for (const std::string secret : {"", "fleet-secret"}) {
    FixtureAgent agent;
    agent.secret = secret;
    agent.Start();
    LineConn c = Connect(agent.port());
    auto info = FetchUdInfo(c, NowNs() + 5 * kSecond, secret, true);
    ASSERT_TRUE(info.ok()) << (secret.empty() ? "no secret: " : "secret: ") << info.status().message();
    ExpectSameEndpoints(info->endpoints, SixtyFourEndpoints().endpoints);
    EXPECT_EQ(info->qkey, kProbeQkey);
    EXPECT_EQ(info->total, std::optional<size_t>(64));
    EXPECT_FALSE(info->next);
    std::lock_guard<std::mutex> lock(agent.mu);
    EXPECT_EQ(agent.snapshots, 1) << "the pages of one connection come from one snapshot";
  }
}

// The pages as they travel: more than one, each line (sealed or not) within
// the limit, each continuing where the previous one ended.
TEST(UdInfoPages, EveryLineOnTheWireFitsAndPagesFollowEachOther) {
  for (const std::string secret : {"", "fleet-secret"}) {
    FixtureAgent agent;
    agent.secret = secret;
    agent.Start();
    LineConn c = Connect(agent.port());
    const uint64_t deadline = NowNs() + 5 * kSecond;
    ControlSeal seal;
    if (!secret.empty()) {
      auto a = Authenticate(c, secret, true, deadline);
      ASSERT_TRUE(a.ok()) << a.status().message();
      seal = std::move(a).value();
    }
    size_t from = 0, pages = 0;
    UdInfoReply all;
    do {
      ASSERT_TRUE(WriteSealed(c, seal, EncodeUdInfoRequest(from), deadline).ok());
      auto line = c.ReadLine(deadline);  // refuses a line over kMaxLineBytes
      ASSERT_TRUE(line.ok()) << line.status().message();
      EXPECT_LE(line->size(), kMaxLineBytes);
      auto body = seal.Open(*line);
      ASSERT_TRUE(body.ok()) << body.status().message();
      auto page = ParseUdInfoReply(*body);
      ASSERT_TRUE(page.ok()) << page.status().message();
      EXPECT_FALSE(page->endpoints.empty());
      ASSERT_TRUE(AppendUdInfoPage(*page, from, &all).ok());
      from = all.endpoints.size();
      ++pages;
    } while (all.next && pages < 64);
    EXPECT_GE(pages, 2u);
    EXPECT_EQ(all.endpoints.size(), 64u);
  }
}

TEST(UdInfoPages, OlderProberIsServedTheFirstPage) {
  FixtureAgent agent;
  agent.Start();
  LineConn c = Connect(agent.port());
  ASSERT_TRUE(c.WriteLine(R"({"op":"ud_info"})", NowNs() + kSecond).ok());
  auto line = c.ReadLine(NowNs() + 3 * kSecond);
  ASSERT_TRUE(line.ok()) << line.status().message();
  EXPECT_LE(line->size(), kMaxLineBytes);
  auto page = ParseUdInfoReply(*line);
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_FALSE(page->endpoints.empty());
  EXPECT_LT(page->endpoints.size(), 64u);
  EXPECT_EQ(page->endpoints[0].gid, SixtyFourEndpoints().endpoints[0].gid);
  EXPECT_EQ(page->next, std::optional<size_t>(page->endpoints.size()));
  EXPECT_EQ(page->total, std::optional<size_t>(64));
}

// An older agent ignores "from" and answers the whole (short) list in one
// line without "next": the new prober takes it as complete.
TEST(UdInfoPages, NewProberReadsAnOlderAgentsSingleLine) {
  const UdInfoReply all = SixtyFourEndpoints();
  UdInfoReply old_list;
  old_list.endpoints.assign(all.endpoints.begin(), all.endpoints.begin() + 10);
  std::atomic<int> requests{0};
  auto s = ControlServer::Start(0, [&](LineConn& c, const std::atomic<bool>& stop) {
    for (int i = 0; i < 4; ++i) {
      auto line = c.ReadLine(NowNs() + 3 * kSecond, &stop);
      if (!line.ok()) return;
      ++requests;
      if (!c.WriteLine(EncodeUdInfoReply(old_list), NowNs() + kSecond).ok()) return;
    }
  }, {"127.0.0.1"});
  ASSERT_TRUE(s.ok()) << s.status().message();
  LineConn c = Connect((*s)->port());
  auto info = FetchUdInfo(c, NowNs() + 5 * kSecond);
  ASSERT_TRUE(info.ok()) << info.status().message();
  ExpectSameEndpoints(info->endpoints, old_list.endpoints);
  EXPECT_FALSE(info->total);
  EXPECT_EQ(requests.load(), 1);
}

// Each connection takes its own snapshot; a connection's pages never mix two.
TEST(UdInfoPages, PagesOfAConnectionComeFromOneSnapshot) {
  FixtureAgent agent;
  agent.make = [](int n) { return SixtyFourEndpoints(0x1000 + 0x100 * uint32_t(n)); };
  agent.Start();
  for (int n = 0; n < 3; ++n) {
    LineConn c = Connect(agent.port());
    auto info = FetchUdInfo(c, NowNs() + 5 * kSecond);
    ASSERT_TRUE(info.ok()) << info.status().message();
    ExpectSameEndpoints(info->endpoints, SixtyFourEndpoints(0x1000 + 0x100 * uint32_t(n)).endpoints);
  }
}

// Continuations do not use up a connection's request cap: a full list
// (kMaxUdEndpoints, dozens of pages) reads on one authenticated connection.
TEST(UdInfoPages, TheLargestListReadsOnOneConnection) {
  FixtureAgent agent;
  agent.secret = "fleet-secret";
  UdInfoReply largest;
  while (largest.endpoints.size() < size_t(kMaxUdEndpoints)) {
    for (auto e : SixtyFourEndpoints(uint32_t(largest.endpoints.size())).endpoints) {
      if (largest.endpoints.size() == size_t(kMaxUdEndpoints)) break;
      e.gid_index = int(largest.endpoints.size() % 256);
      largest.endpoints.push_back(e);
    }
  }
  // Far more pages than the request cap (unsealed pages; sealed ones are smaller still).
  size_t pages = 0;
  for (size_t from = 0; from < largest.endpoints.size(); ++pages) {
    auto page = EncodeUdInfoPage(largest, from, [](const std::string& l) { return l.size(); });
    ASSERT_TRUE(page.ok()) << page.status().message();
    from = page->next.value_or(largest.endpoints.size());
  }
  EXPECT_GT(pages, size_t(2 * kControlMaxRequests));
  agent.make = [largest](int) { return largest; };
  agent.Start();
  LineConn c = Connect(agent.port());
  auto info = FetchUdInfo(c, NowNs() + 10 * kSecond, agent.secret, true);
  ASSERT_TRUE(info.ok()) << info.status().message();
  ExpectSameEndpoints(info->endpoints, largest.endpoints);
}

TEST(UdInfoPages, BadPagingIsRefusedWithWhatWasWrong) {
  const UdInfoReply all = SixtyFourEndpoints();
  UdInfoReply page;
  page.endpoints.assign(all.endpoints.begin(), all.endpoints.begin() + 5);
  page.total = 64;
  UdInfoReply merged;

  page.next = 7;  // does not follow its 5 endpoints
  Status s = AppendUdInfoPage(page, 0, &merged);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("does not follow"), std::string::npos) << s.message();

  UdInfoReply empty;  // no progress
  empty.next = 5;
  page.next = 5;
  ASSERT_TRUE(AppendUdInfoPage(page, 0, &merged).ok());
  s = AppendUdInfoPage(empty, 5, &merged);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no endpoint"), std::string::npos) << s.message();

  UdInfoReply other_qkey = page;
  other_qkey.qkey = 7;
  other_qkey.next = 10;
  s = AppendUdInfoPage(other_qkey, 5, &merged);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("qkey"), std::string::npos) << s.message();

  UdInfoReply last = page;  // ends at 10 of the 64 announced
  last.next.reset();
  s = AppendUdInfoPage(last, 5, &merged);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("of the 64 announced"), std::string::npos) << s.message();

  s = AppendUdInfoPage(page, 9, &merged);  // a gap
  EXPECT_FALSE(s.ok());

  auto beyond = EncodeUdInfoPage(all, 65, [](const std::string& l) { return l.size(); });
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.status().message().find("65"), std::string::npos);
  UdInfoReply huge;
  huge.endpoints.push_back(all.endpoints[0]);
  huge.endpoints[0].rail = std::string(kMaxLineBytes, 'r');
  auto alone = EncodeUdInfoPage(huge, 0, [](const std::string& l) { return l.size(); });
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.status().message().find("mlx5_0 port 1"), std::string::npos) << alone.status().message();
  auto last_page = EncodeUdInfoPage(all, 64, [](const std::string& l) { return l.size(); });
  ASSERT_TRUE(last_page.ok());
  EXPECT_FALSE(last_page->next);
}

TEST(UdInfoPages, AnIdleResponderAnswersAnEmptyList) {
  auto r = LoopbackResponder("fleet-secret");
  ASSERT_NE(r, nullptr);
  LineConn c = Connect(r->control_port());
  auto info = FetchUdInfo(c, NowNs() + 5 * kSecond, "fleet-secret", true);
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_TRUE(info->endpoints.empty());
  EXPECT_EQ(info->total, std::optional<size_t>(0));
}

// The RC prober's setup against 64 endpoints: every page, the endpoint of its
// rail (on the last page), then rc_connect on the same sealed connection.
TEST(RcSetupPages, SixtyFourEndpointsThenRcConnectOverOneSealedConnection) {
  FixtureAgent agent;
  agent.secret = "fleet-secret";
  agent.Start();
  ProberOptions o;
  o.host = "127.0.0.1";
  o.control_port = agent.port();
  o.control_secret = agent.secret;
  o.rail = "rail15";
  LocalPort local;
  local.roce = true;
  RcConnectRequest req;
  req.prober.qpn = 0x42;
  req.prober.psn = 0x4242;
  req.prober.gid = *GidFromString("::ffff:10.20.0.99");
  req.prober.global = true;
  req.prober.mtu_bytes = 1024;
  req.session = "0123456789abcdef";
  LineConn c = Connect(agent.port());
  auto setup = ExchangeRcSetup(c, o, local, req, NowNs() + 5 * kSecond);
  ASSERT_TRUE(setup.ok()) << setup.status().message();
  EXPECT_EQ(setup->target.rail, "rail15");
  EXPECT_EQ(setup->target.gid, "::ffff:10.20.15.17");  // the rail's routable GID, from the last page
  EXPECT_EQ(setup->reply.responder.qpn, 0xffffffu);
  EXPECT_EQ(setup->reply.read_addr, UINT64_MAX);
  EXPECT_EQ(setup->reply.idle_timeout_ms, 86400000u);
  std::lock_guard<std::mutex> lock(agent.mu);
  ASSERT_EQ(agent.rc_requests.size(), 1u);
  EXPECT_EQ(agent.rc_requests[0].target_gid, "::ffff:10.20.15.17");
  EXPECT_EQ(agent.rc_requests[0].session, "0123456789abcdef");
}

// An rc_connect refused with an absurdly long message still arrives as the
// refusal (cut), not as a line too long.
TEST(RcSetupPages, ALongRefusalArrivesAsTheRefusal) {
  FixtureAgent agent;
  agent.secret = "fleet-secret";
  agent.rc_error = "RC session table full: " + std::string(20000, '"');
  agent.Start();
  ProberOptions o;
  o.host = "127.0.0.1";
  o.control_secret = agent.secret;
  LocalPort local;
  local.roce = true;
  RcConnectRequest req;
  req.prober.gid = *GidFromString("::ffff:10.20.0.99");
  req.prober.global = true;
  req.prober.mtu_bytes = 1024;
  LineConn c = Connect(agent.port());
  auto setup = ExchangeRcSetup(c, o, local, req, NowNs() + 5 * kSecond);
  ASSERT_FALSE(setup.ok());
  EXPECT_NE(setup.status().message().find("peer refused: RC session table full"), std::string::npos)
      << setup.status().message().substr(0, 200);
}

// Every reply of the RC path fits a line once sealed, at its largest: the
// rc_connect reply with every number at its maximum, and error replies whose
// text is the worst there is for escaping (quotes, backslashes, control
// characters, bytes that are not UTF-8), far longer than a line.
TEST(RcSetupPages, RcRepliesFitALineSealedAtTheirLargest) {
  ControlSeal seal("k", ControlSeal::Side::kAgent);
  for (int i = 0; i < 3; ++i) seal.Seal("x");  // a seq of several digits changes nothing that matters
  const std::string rc = EncodeRcConnectReply(LargestRcReply());
  EXPECT_LE(seal.SealedBytes(rc), kMaxLineBytes / 4) << rc;
  auto back = ParseRcConnectReply(rc);
  ASSERT_TRUE(back.ok()) << back.status().message();
  for (char c : {'"', '\\', '\x01', '\xff'}) {
    const std::string err = EncodeErrorReply(std::string(100000, c));
    EXPECT_LE(seal.SealedBytes(err), kMaxLineBytes) << int(c);
    EXPECT_EQ(seal.SealedBytes(err), seal.Seal(err).size());
    auto refused = ParseRcConnectReply(err);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.status().message().find("peer refused"), std::string::npos);
  }
}

}  // namespace
}  // namespace rdmascope::probes
