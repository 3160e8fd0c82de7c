// Control-port authentication (protocol v2) and the limits that keep the
// port available: labelled proofs over both nonces, sealed requests, strict
// and lenient modes on both sides, the per-address cap, the auth deadline,
// the request cap and the connection lifetime (over loopback, no device).
#include <gtest/gtest.h>

#include <poll.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/control_auth.h"
#include "probes/control_protocol.h"
#include "probes/control_seal.h"
#include "probes/control_server.h"
#include "probes/line_socket.h"
#include "probes/probe_clock.h"
#include "probes/responder.h"
#include "tests/unit/control_test_support.h"

namespace rdmascope::probes {
namespace {

constexpr uint64_t kSecond = 1000000000ull;

TEST(ControlAuth, MacIsHmacSha256AndProofsAreLabelledOverBothNonces) {
  // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  const std::string np(32, 'a'), na(32, 'b');
  const std::string p = ProberProof("s", np, na), a = AgentProof("s", np, na), k = SessionKey("s", np, na);
  EXPECT_NE(p, a);  // an agent's proof is never a prober's, nor the key
  EXPECT_NE(p, k);
  EXPECT_NE(a, k);
  EXPECT_NE(p, ProberProof("s", na, np));  // each nonce in its place
  EXPECT_NE(p, ProberProof("s", np, std::string(32, 'c')));
  EXPECT_NE(p, ProberProof("t", np, na));
  EXPECT_TRUE(MacHexEqual(p, ProberProof("s", np, na)));
  EXPECT_FALSE(MacHexEqual(p, p.substr(1)));
  auto n1 = NewNonceHex();
  auto n2 = NewNonceHex();
  ASSERT_TRUE(n1.ok() && n2.ok());
  EXPECT_TRUE(IsNonceHex(*n1));
  EXPECT_NE(*n1, *n2);
  EXPECT_FALSE(IsNonceHex(std::string(32, 'A')));
  EXPECT_FALSE(IsNonceHex(std::string(31, 'a')));
}

TEST(ControlSeal, RefusesReplayReflectionTamperingAndOtherKeys) {
  ControlSeal prober("k", ControlSeal::Side::kProber), agent("k", ControlSeal::Side::kAgent);
  const std::string l1 = prober.Seal(R"({"op":"ud_info"})");
  auto b1 = agent.Open(l1);
  ASSERT_TRUE(b1.ok()) << b1.status().message();
  EXPECT_EQ(*b1, R"({"op":"ud_info"})");
  auto replay = agent.Open(l1);
  ASSERT_FALSE(replay.ok());
  EXPECT_NE(replay.status().message().find("sequence"), std::string::npos) << replay.status().message();
  // The agent's own line sent back to it (reflection) fails the MAC.
  ControlSeal agent2("k", ControlSeal::Side::kAgent);
  EXPECT_FALSE(agent2.Open(agent2.Seal(R"({"op":"ud_info"})")).ok());
  // An altered body fails the MAC.
  nlohmann::json j = nlohmann::json::parse(prober.Seal(R"({"op":"ud_info"})"));
  j["body"] = R"({"op":"rc_connect"})";
  auto altered = agent.Open(j.dump());
  ASSERT_FALSE(altered.ok());
  EXPECT_NE(altered.status().message().find("wrong MAC"), std::string::npos) << altered.status().message();
  ControlSeal other("other", ControlSeal::Side::kAgent);
  EXPECT_FALSE(other.Open(ControlSeal("k", ControlSeal::Side::kProber).Seal("x")).ok());
  EXPECT_FALSE(agent.Open(R"({"op":"ud_info"})").ok());  // unsealed after authentication
  EXPECT_FALSE(agent.Open("not json").ok());
  ControlSeal plain;
  EXPECT_EQ(plain.Seal("x"), "x");
  EXPECT_EQ(*plain.Open("y"), "y");
}

// One connection: authenticate (when `secret` is set), then ud_info.
Result<std::string> UdInfoWith(int port, const std::string& secret, bool strict = true) {
  auto fd = TcpConnect("127.0.0.1", port, 2000);
  if (!fd.ok()) return fd.status();
  LineConn c(std::move(fd).value());
  const uint64_t deadline = NowNs() + 3 * kSecond;
  ControlSeal seal;
  if (!secret.empty()) {
    auto a = Authenticate(c, secret, strict, deadline);
    if (!a.ok()) return a.status();
    seal = std::move(a).value();
  }
  Status s = WriteSealed(c, seal, EncodeUdInfoRequest(), deadline);
  if (!s.ok()) return s;
  return ReadSealed(c, seal, deadline);
}

// Sends `line` on a fresh connection; the reply and whether the agent then closed.
struct Said {
  std::string reply;
  bool closed = false;
};
Said SayOnce(int port, const std::string& line) {
  Said out;
  auto fd = TcpConnect("127.0.0.1", port, 2000);
  if (!fd.ok()) return out;
  LineConn c(std::move(fd).value());
  if (!c.WriteLine(line, NowNs() + kSecond).ok()) return out;
  auto r = c.ReadLine(NowNs() + 3 * kSecond);
  if (r.ok()) out.reply = *r;
  out.closed = !c.ReadLine(NowNs() + 3 * kSecond).ok();
  return out;
}

TEST(ControlAuth, StrictAgentServesOnlyMutuallyAuthenticatedSealedPeers) {
  auto r = LoopbackResponder("fleet-secret");
  ASSERT_NE(r, nullptr);
  const int port = r->control_port();
  auto right = UdInfoWith(port, "fleet-secret");
  ASSERT_TRUE(right.ok()) << right.status().message();
  EXPECT_NE(right->find("\"ok\":true"), std::string::npos) << *right;
  auto wrong = UdInfoWith(port, "guess");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("wrong control secret"), std::string::npos) << wrong.status().message();
  Said none = SayOnce(port, R"({"op":"ud_info"})");
  EXPECT_NE(none.reply.find("authentication required"), std::string::npos) << none.reply;
  EXPECT_EQ(none.reply.find("qpn"), std::string::npos) << none.reply;
  EXPECT_TRUE(none.closed);
  Said v1 = SayOnce(port, R"({"op":"hello"})");  // a v1 prober: no nonce of its own
  EXPECT_NE(v1.reply.find("v2 required"), std::string::npos) << v1.reply;
  EXPECT_EQ(v1.reply.find("\"nonce\":"), std::string::npos) << v1.reply;
  EXPECT_TRUE(v1.closed);
  Said early = SayOnce(port, R"({"op":"auth","mac":"00"})");
  EXPECT_NE(early.reply.find("auth before"), std::string::npos) << early.reply;
  EXPECT_TRUE(early.closed);
  // Authenticated, then an unsealed request: refused and closed.
  auto fd = TcpConnect("127.0.0.1", port, 2000);
  ASSERT_TRUE(fd.ok());
  LineConn c(std::move(fd).value());
  auto seal = Authenticate(c, "fleet-secret", true, NowNs() + 3 * kSecond);
  ASSERT_TRUE(seal.ok()) << seal.status().message();
  EXPECT_TRUE(seal->keyed());
  ASSERT_TRUE(c.WriteLine(EncodeUdInfoRequest(), NowNs() + kSecond).ok());
  ControlSeal s = std::move(seal).value();
  auto reply = ReadSealed(c, s, NowNs() + 3 * kSecond);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_NE(reply->find("needs seq"), std::string::npos) << *reply;
  EXPECT_EQ(reply->find("qpn"), std::string::npos) << *reply;
  EXPECT_FALSE(c.ReadLine(NowNs() + 3 * kSecond).ok());
}

TEST(ControlAuth, LenientAgentServesStrangersButStillRefusesAWrongSecret) {
  auto r = LoopbackResponder("fleet-secret", /*strict=*/false);
  ASSERT_NE(r, nullptr);
  Said none = SayOnce(r->control_port(), R"({"op":"ud_info"})");
  EXPECT_NE(none.reply.find("\"ok\":true"), std::string::npos) << none.reply;
  Said v1 = SayOnce(r->control_port(), R"({"op":"hello"})");
  EXPECT_EQ(v1.reply, R"({"ok":true})");  // no nonce: a v1 prober goes on unauthenticated
  auto right = UdInfoWith(r->control_port(), "fleet-secret");
  ASSERT_TRUE(right.ok()) << right.status().message();
  auto wrong = UdInfoWith(r->control_port(), "guess");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("wrong control secret"), std::string::npos) << wrong.status().message();
}

// A scripted agent: answers each request line with the next of `replies`.
std::unique_ptr<ControlServer> FakeAgent(std::vector<std::string> replies) {
  auto s = ControlServer::Start(0, [replies](LineConn& c, const std::atomic<bool>& stop) {
    for (const auto& r : replies) {
      if (!c.ReadLine(NowNs() + 3 * kSecond, &stop).ok()) return;
      if (!c.WriteLine(r, NowNs() + kSecond).ok()) return;
    }
  }, {"127.0.0.1"});
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(ControlAuth, StrictProberRefusesDowngradesAndAgentsThatDoNotProveTheSecret) {
  auto open = LoopbackResponder();  // no secret: hello offers no nonce
  ASSERT_NE(open, nullptr);
  auto strict = UdInfoWith(open->control_port(), "fleet-secret");
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.status().message().find("offers no authentication"), std::string::npos)
      << strict.status().message();
  auto lenient = UdInfoWith(open->control_port(), "fleet-secret", /*strict=*/false);
  ASSERT_TRUE(lenient.ok()) << lenient.status().message();
  EXPECT_NE(lenient->find("\"ok\":true"), std::string::npos) << *lenient;

  const std::string na(32, '7');
  // An impostor that offers a v2 nonce and accepts any auth but cannot prove the secret.
  auto impostor = FakeAgent({R"({"ok":true,"v":2,"nonce":")" + na + R"("})", R"({"ok":true})",
                             R"({"ok":true,"endpoints":[]})"});
  ASSERT_NE(impostor, nullptr);
  auto fooled = UdInfoWith(impostor->port(), "fleet-secret");
  ASSERT_FALSE(fooled.ok());
  EXPECT_NE(fooled.status().message().find("did not prove"), std::string::npos) << fooled.status().message();

  // A v1 agent (nonce, no version): strict refuses; lenient answers with the v1 MAC.
  auto v1 = FakeAgent({R"({"ok":true,"nonce":")" + na + R"("})", R"({"ok":true})",
                       R"({"ok":true,"qkey":286331153,"endpoints":[]})"});
  ASSERT_NE(v1, nullptr);
  auto refused = UdInfoWith(v1->port(), "fleet-secret");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("protocol v1"), std::string::npos) << refused.status().message();
  auto upgrade = UdInfoWith(v1->port(), "fleet-secret", /*strict=*/false);
  EXPECT_TRUE(upgrade.ok()) << upgrade.status().message();
}

TEST(ControlAuth, ProberSurvivesHelloRepliesOfTheWrongShape) {
  const std::string na(32, '7');
  for (const std::string& hello : {std::string(R"({"ok":"yes"})"), std::string(R"(["ok"])"),
                                   R"({"ok":true,"v":"2","nonce":")" + na + R"("})",
                                   std::string(R"({"ok":true,"v":2,"nonce":"ZZ"})"),
                                   std::string(R"({"ok":true,"v":2,"nonce":7})")}) {
    auto agent = FakeAgent({hello, R"({"ok":true})", R"({"ok":true,"endpoints":[]})"});
    ASSERT_NE(agent, nullptr);
    auto r = UdInfoWith(agent->port(), "fleet-secret");  // never throws, never goes on unauthenticated
    EXPECT_FALSE(r.ok()) << hello;
  }
}

TEST(ControlLimits, OneAddressHoldsAtMostItsCapAndIdleConnectionsAreClosed) {
  auto r = LoopbackResponder("fleet-secret");
  ASSERT_NE(r, nullptr);
  const int port = r->control_port();
  // 64 idle connections from 127.0.0.1: the cap's worth are held, the rest refused at once.
  std::vector<std::unique_ptr<LineConn>> idle;
  for (int i = 0; i < ControlServer::kMaxConnections; ++i) {
    UniqueFd fd = ConnectFrom("127.0.0.1", port);
    ASSERT_TRUE(fd.valid());
    idle.push_back(std::make_unique<LineConn>(std::move(fd)));
  }
  const uint64_t t0 = NowNs();
  int refused = 0;
  for (auto& c : idle) {
    auto line = c->ReadLine(NowNs() + 200000000ull);  // a refusal comes at once; a held one says nothing
    if (line.ok() && line->find("too many control connections from 127.0.0.1") != std::string::npos) ++refused;
  }
  EXPECT_EQ(refused, ControlServer::kMaxConnections - ControlServer::kMaxPerPeer);
  // Another host is served meanwhile, with the secret.
  UniqueFd fd = ConnectFrom("127.0.0.2", port);
  ASSERT_TRUE(fd.valid());
  LineConn other(std::move(fd));
  auto seal = Authenticate(other, "fleet-secret", true, NowNs() + 3 * kSecond);
  ASSERT_TRUE(seal.ok()) << seal.status().message();
  ControlSeal s = std::move(seal).value();
  ASSERT_TRUE(WriteSealed(other, s, EncodeUdInfoRequest(), NowNs() + kSecond).ok());
  auto info = ReadSealed(other, s, NowNs() + 3 * kSecond);
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_NE(info->find("\"ok\":true"), std::string::npos) << *info;
  // The held idle ones are closed at the auth deadline (5 s), not kept.
  int closed = 0;
  for (auto& c : idle) closed += c->ReadLine(t0 + 8 * kSecond).ok() ? 0 : 1;
  EXPECT_EQ(closed, ControlServer::kMaxConnections);
  EXPECT_LT(NowNs() - t0, 8 * kSecond);
  // ...and the address may connect again.
  auto again = UdInfoWith(port, "fleet-secret");
  EXPECT_TRUE(again.ok()) << again.status().message();
}

TEST(ControlLimits, MalformedLineClosesAndRequestsAndLifetimeAreBounded) {
  auto r = LoopbackResponder();
  ASSERT_NE(r, nullptr);
  Said bad = SayOnce(r->control_port(), "{\"op\":\"ud_info\"");
  EXPECT_NE(bad.reply.find("\"ok\":false"), std::string::npos) << bad.reply;
  EXPECT_TRUE(bad.closed);
  Said unknown = SayOnce(r->control_port(), R"({"op":"nonsense"})");
  EXPECT_NE(unknown.reply.find("unknown op"), std::string::npos) << unknown.reply;
  EXPECT_TRUE(unknown.closed);
  // Requests on one connection: 8 answered, then the close.
  auto fd = TcpConnect("127.0.0.1", r->control_port(), 2000);
  ASSERT_TRUE(fd.ok());
  LineConn c(std::move(fd).value());
  int answered = 0;
  for (int i = 0; i < 12; ++i) {
    if (!c.WriteLine(EncodeUdInfoRequest(), NowNs() + kSecond).ok()) break;
    if (!c.ReadLine(NowNs() + 3 * kSecond).ok()) break;
    ++answered;
  }
  EXPECT_EQ(answered, 8);
  // Lifetime: a request every 4 s (within the idle limit) still ends by 15 s.
  fd = TcpConnect("127.0.0.1", r->control_port(), 2000);
  ASSERT_TRUE(fd.ok());
  LineConn slow(std::move(fd).value());
  const uint64_t t0 = NowNs();
  uint64_t ended = 0;
  for (int i = 0; i < 6 && ended == 0; ++i) {
    if (i > 0) ::poll(nullptr, 0, 4000);  // paced requests, not a wait for the result
    if (!slow.WriteLine(EncodeUdInfoRequest(), NowNs() + kSecond).ok() ||
        !slow.ReadLine(NowNs() + 3 * kSecond).ok()) {
      ended = NowNs();
    }
  }
  ASSERT_NE(ended, 0u) << "a paced connection outlived 20 s";
  EXPECT_GE(ended - t0, 14 * kSecond);
  EXPECT_LE(ended - t0, 18 * kSecond);
}

}  // namespace
}  // namespace rdmascope::probes
