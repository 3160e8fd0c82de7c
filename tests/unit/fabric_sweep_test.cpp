// The fabric library against an in-memory subnet: the engine's window,
// timeouts, retries and late answers; discovery, links, counters with
// saturation, and partial results. The same code runs on ibsim in tests/fabric.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "fabric/fabric_errors.h"
#include "fabric/fabric_json.h"
#include "fabric/mad_codec.h"
#include "fabric/neighbour.h"
#include "fabric/sweep.h"
#include "tests/fabric/fake_subnet.h"

namespace rdmascope::fabric {
namespace {

using testing::FakeNode;
using testing::FakeSubnet;

FakeSubnet SmallSubnet() { return testing::SmallSubnet(true); }

const FabricNode* Find(const Fabric& f, const std::string& name) {
  for (const FabricNode& n : f.nodes)
    if (n.description == name) return &n;
  return nullptr;
}

const FabricPort* PortOf(const FabricNode* n, int port) {
  for (const FabricPort& p : n->ports)
    if (p.number == port) return &p;
  return nullptr;
}

// Runs n NodeInfo requests to one node through an engine with `window` (and
// no lower bound per node); returns how many were answered.
int RunNodeInfos(FakeSubnet& s, int window, int n) {
  MadEngine e(s, EngineOptions{window, 50, 1, window});
  int answered = 0;
  for (int i = 0; i < n; ++i)
    e.Submit(DirectedGet(kAttrNodeInfo, 0, {1}), "NodeInfo", [&](const MadAnswer& a) { answered += a.ok; });
  EXPECT_TRUE(e.Run().ok());
  EXPECT_EQ(e.stats().max_in_flight, std::min(window, n));
  return answered;
}

TEST(MadEngine, KeepsAtMostWindowInFlightAndAnswersEveryRequest) {
  FakeSubnet s = SmallSubnet();
  EXPECT_EQ(RunNodeInfos(s, 4, 40), 40);
  EXPECT_LE(s.max_in_flight, 4);
}

// After the first fill, sends go out in bursts once half the window is back,
// so the far end wakes once per burst rather than once per answer.
TEST(MadEngine, RefillsInBurstsAtHalfTheWindow) {
  FakeSubnet s = SmallSubnet();
  EXPECT_EQ(RunNodeInfos(s, 8, 64), 64);
  ASSERT_GE(s.burst_starts.size(), 2u);
  EXPECT_EQ(s.burst_starts[0], 0);
  for (int in_flight : s.burst_starts) EXPECT_LE(in_flight, 4);
  EXPECT_LE(s.burst_starts.size(), 64u / 4) << "bursts of at least 4 sends";
}

// Directed routes to two switches: each gets at most per_target at once,
// together they fill more of the window than one could.
TEST(MadEngine, KeepsAtMostPerTargetInFlightTowardEachNode) {
  FakeSubnet s = SmallSubnet();
  MadEngine e(s, EngineOptions{64, 200, 1, 3});
  int answered = 0;
  for (int i = 0; i < 30; ++i) {
    e.Submit(DirectedGet(kAttrNodeInfo, 0, {1}), "NodeInfo sw1", [&](const MadAnswer& a) { answered += a.ok; });
    e.Submit(DirectedGet(kAttrNodeInfo, 0, {1, 3}), "NodeInfo sw2", [&](const MadAnswer& a) { answered += a.ok; });
  }
  ASSERT_TRUE(e.Run().ok());
  EXPECT_EQ(answered, 60);
  EXPECT_EQ(s.max_in_flight_at[1], 3) << "sw1";
  EXPECT_EQ(s.max_in_flight_at[2], 3) << "sw2";
  EXPECT_EQ(e.stats().max_in_flight_per_target, 3);
  EXPECT_EQ(e.stats().max_in_flight, 6);
}

// SMPs and PMA queries do not share a window: each class fills its own.
TEST(MadEngine, PmaQueriesHaveTheirOwnWindow) {
  FakeSubnet s = SmallSubnet();
  MadEngine e(s, EngineOptions{2, 200, 1, 64});
  int answered = 0;
  for (int i = 0; i < 10; ++i) {
    e.Submit(DirectedGet(kAttrNodeInfo, 0, {1}), "NodeInfo sw1", [&](const MadAnswer& a) { answered += a.ok; });
    e.Submit(PmaGet(kAttrPortCounters, 10, 1), "PortCounters sw1", [&](const MadAnswer& a) { answered += a.ok; });
  }
  ASSERT_TRUE(e.Run().ok());
  EXPECT_EQ(answered, 20);
  EXPECT_EQ(e.stats().max_in_flight, 4) << "two SMPs and two PMA queries";
  EXPECT_LE(s.max_in_flight_at[1], 4);
}

// An attempt without an answer halves its node's window; answers widen it.
TEST(MadEngine, ATimeoutHalvesTheNodeWindowAndAnswersWidenItAgain) {
  FakeSubnet s = SmallSubnet();
  s.answer_delays_ms = {300};  // the first answer comes long after its 20 ms timeout
  MadEngine e(s, EngineOptions{64, 20, 2, 4});
  int answered = 0;
  for (int i = 0; i < 12; ++i)
    e.Submit(DirectedGet(kAttrNodeInfo, 0, {1}), "NodeInfo sw1", [&](const MadAnswer& a) { answered += a.ok; });
  ASSERT_TRUE(e.Run().ok());
  EXPECT_EQ(answered, 12);
  EXPECT_EQ(e.stats().mads_timed_out, 1u);
  EXPECT_EQ(e.stats().backoffs, 1u);
  EXPECT_EQ(e.stats().max_in_flight_per_target, 4);
}

// Once one MAD to a node gave up after every retry, the node's queued MADs
// fail unsent: a silent switch costs one timeout chain, not one per port.
TEST(MadEngine, ASilentNodesQueuedMadsFailUnsentOnceOneGaveUp) {
  FakeSubnet s = SmallSubnet();
  s.silent.insert("sw2");
  MadEngine e(s, EngineOptions{64, 30, 1, 4});
  std::vector<std::string> errors;
  for (int port = 1; port <= 20; ++port)
    e.Submit(DirectedGet(kAttrPortInfo, static_cast<uint32_t>(port), {1, 3}),
             "PortInfo port " + std::to_string(port) + " via DR 0,1,3",
             [&](const MadAnswer& a) { errors.push_back(a.ok ? "answered" : a.error); });
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(e.Run().ok());
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(errors.size(), 20u);
  // Retries go first, so the first to give up may be any of the first window's.
  EXPECT_THAT(errors[0], ::testing::MatchesRegex("PortInfo port [1-4] via DR 0,1,3: no answer after 2 tries of 30 ms"));
  EXPECT_THAT(errors.back(), ::testing::MatchesRegex("PortInfo port 20 via DR 0,1,3: not sent: an earlier MAD to the "
                                                   "same node gave no answer \\(PortInfo port [1-4] via DR 0,1,3: "
                                                   "no answer after 2 tries of 30 ms\\)"));
  EXPECT_LE(s.sent, 8) << "the first window and its retries, no more";
  EXPECT_GE(e.stats().mads_not_sent, 12u);
  EXPECT_EQ(e.stats().mads_failed, 20u);
  EXPECT_LT(ms, 400) << "two timeouts, not twenty";
}

TEST(MadEngine, SilentTargetFailsAfterEveryRetryWithinTimeoutTimesTries) {
  FakeSubnet s = SmallSubnet();
  s.silent.insert("hca3");
  MadEngine e(s, EngineOptions{64, 30, 2});
  std::string error;
  auto t0 = std::chrono::steady_clock::now();
  e.Submit(DirectedGet(kAttrNodeInfo, 0, {1, 3, 1}), "NodeInfo via DR 0,1,3,1",
           [&](const MadAnswer& a) { error = a.ok ? "answered" : a.error; });
  ASSERT_TRUE(e.Run().ok());
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(error, "NodeInfo via DR 0,1,3,1: no answer after 3 tries of 30 ms");
  EXPECT_EQ(s.sent, 3);
  EXPECT_GE(ms, 85);
  EXPECT_LT(ms, 300);
}

TEST(MadEngine, LateAnswerToAnAbandonedAttemptIsDropped) {
  FakeSubnet s = SmallSubnet();
  // The first try answers long after its 20 ms timeout (a thread descheduled
  // for under 180 ms still sees the timeout first), the retry at once.
  s.answer_delays_ms = {200, 0};
  MadEngine e(s, EngineOptions{64, 20, 2});
  int calls_a = 0;
  e.Submit(DirectedGet(kAttrNodeInfo, 0, {}), "NodeInfo A", [&](const MadAnswer& a) { calls_a += a.ok ? 1 : 100; });
  ASSERT_TRUE(e.Run().ok());
  EXPECT_EQ(calls_a, 1);
  EXPECT_EQ(s.sent, 2);
  EXPECT_EQ(e.stats().mads_timed_out, 1u);
  // The first try's answer turns up during the next sweep on the same transport:
  // it must not be taken for B's (transaction ids are unique per process).
  s.answer_delays_ms = {400};  // B's answer comes after the first try's late one
  std::string b_desc;
  MadEngine next(s, EngineOptions{64, 1000, 0});
  next.Submit(DirectedGet(kAttrNodeDesc, 0, {1}), "NodeDescription B", [&](const MadAnswer& a) {
    b_desc = a.ok ? ParseNodeDescription(*a.mad) : a.error;
  });
  ASSERT_TRUE(next.Run().ok());
  EXPECT_EQ(calls_a, 1);
  EXPECT_EQ(b_desc, "sw1");
  EXPECT_EQ(next.stats().mads_timed_out, 0u);
}

TEST(Sweep, FindsEveryNodeAndBothEndsOfEveryLink) {
  FakeSubnet s = SmallSubnet();
  Result<Fabric> f = SweepSubnet(s, SweepOptions{});
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->nodes.size(), 5u);
  EXPECT_TRUE(f->unreachable.empty());
  EXPECT_EQ(f->nodes[0].type, NodeType::kSwitch);  // switches first
  const FabricNode* sw1 = Find(*f, "sw1");
  ASSERT_NE(sw1, nullptr);
  EXPECT_EQ(sw1->lid, 10u);
  ASSERT_EQ(sw1->ports.size(), 8u);
  ASSERT_TRUE(PortOf(sw1, 5)->remote.has_value());
  EXPECT_EQ(PortOf(sw1, 5)->remote->guid, 0x201u);
  EXPECT_EQ(PortOf(sw1, 5)->remote->port, 5);
  EXPECT_FALSE(PortOf(sw1, 4)->remote.has_value());
  EXPECT_EQ(PortOf(sw1, 4)->state, 1);
  const FabricNode* hca3 = Find(*f, "hca3");
  ASSERT_NE(hca3, nullptr);
  EXPECT_EQ(PortOf(hca3, 1)->remote->guid, 0x201u);
  EXPECT_EQ(PortOf(hca3, 1)->remote->port, 1);
  nlohmann::json j = FabricToJson(f.value(), false);
  EXPECT_EQ(j["nodes"][0]["guid"], "0x0000000000000200");
  EXPECT_EQ(j["nodes"][0]["ports"][0]["width"], "4X");
  EXPECT_EQ(j["nodes"][0]["ports"][0]["speed"], "QDR");
  EXPECT_TRUE(j["nodes"][0]["ports"][3]["remote"].is_null());
}

TEST(Sweep, CountersKeepSysfsNamesMarkSaturationAndMeetThresholds) {
  FakeSubnet s = SmallSubnet();
  s.nodes[2].counters[3] = {{IB_PC_ERR_SYM_F, 0xffff}, {IB_PC_LINK_DOWNED_F, 3}, {IB_PC_XMT_BYTES_F, 10}};
  Result<Fabric> f = SweepSubnet(s, SweepOptions{});
  ASSERT_TRUE(f.ok());
  const FabricPort* p = PortOf(Find(*f, "sw2"), 3);
  ASSERT_EQ(p->counters.count("symbol_error"), 1u);
  EXPECT_EQ(p->counters.at("symbol_error").value, 0xffffu);
  EXPECT_TRUE(p->counters.at("symbol_error").saturated);
  EXPECT_EQ(p->counters.at("link_downed").value, 3u);
  EXPECT_FALSE(p->counters.at("link_downed").saturated);
  EXPECT_EQ(p->counters.at("port_xmit_data_bytes").value, (1000u + 3u) * 4u);  // extended wins, in bytes
  FabricErrors e = EvaluateFabricErrors(f.value(), {{"symbol_error", 10}, {"link_downed", 5}});
  ASSERT_EQ(e.findings.size(), 1u);
  EXPECT_EQ(e.findings[0].counter, "symbol_error");
  EXPECT_EQ(e.findings[0].port, 3);
  EXPECT_TRUE(e.findings[0].saturated);
  ASSERT_TRUE(e.findings[0].remote.has_value());
  EXPECT_EQ(e.findings[0].remote->guid, 0x200u);
  EXPECT_EQ(e.severity, 1);
}

// The PMA's ClassPortInfo decides what is read: asked once per node; the
// 64-bit error counters where the PMA has them (not saturated at 16 bits),
// the 16-bit ones marked saturated elsewhere; no PortCountersExtended where
// the PMA lacks it; no XmitWait where it does not count it (absent, not 0).
TEST(Sweep, CountersFollowEachPmasClassPortInfo) {
  FakeSubnet s = SmallSubnet();
  // sw2 (nodes[2]): additional extended counters; hca3 (nodes[4]): neither
  // PortCountersExtended nor XmitWait; sw1 (nodes[1]): the default.
  s.pma["sw2"] = {0x1300, 1u << 1, {{3, {{IB_PC_EXT_ERR_SYM_F, 70000}, {IB_PC_EXT_XMT_WAIT_F, 5000000000ull}}}}};
  s.pma["hca3"] = {0x0000, 0, {}};
  s.nodes[2].counters[3] = {{IB_PC_ERR_SYM_F, 0xffff}};
  s.nodes[1].counters[3] = {{IB_PC_ERR_SYM_F, 0xffff}, {IB_PC_XMT_WAIT_F, 7}};
  s.nodes[4].counters[1] = {{IB_PC_XMT_WAIT_F, 9}, {IB_PC_XMT_BYTES_F, 10}};
  Result<Fabric> f = SweepSubnet(s, SweepOptions{});
  ASSERT_TRUE(f.ok());
  for (const char* name : {"hca1", "sw1", "sw2", "hca2", "hca3"}) EXPECT_EQ(s.class_port_info_asked[name], 1) << name;
  const FabricPort* wide = PortOf(Find(*f, "sw2"), 3);
  EXPECT_EQ(wide->counters.at("symbol_error").value, 70000u);
  EXPECT_FALSE(wide->counters.at("symbol_error").saturated);
  EXPECT_EQ(wide->counters.at("port_xmit_wait").value, 5000000000u);
  const FabricPort* classic = PortOf(Find(*f, "sw1"), 3);
  EXPECT_EQ(classic->counters.at("symbol_error").value, 0xffffu);
  EXPECT_TRUE(classic->counters.at("symbol_error").saturated);
  EXPECT_EQ(classic->counters.at("port_xmit_wait").value, 7u);
  EXPECT_EQ(classic->counters.at("port_xmit_data_bytes").value, (1000u + 3u) * 4u) << "extended data counters win";
  const FabricPort* old = PortOf(Find(*f, "hca3"), 1);
  EXPECT_EQ(old->counters.count("port_xmit_wait"), 0u) << "not counted by that PMA: absent, not 0";
  EXPECT_EQ(old->counters.at("port_xmit_data_bytes").value, 40u) << "the 32-bit data counter stands";
  EXPECT_EQ(old->counters.count("unicast_xmit_packets"), 0u);
  int ports_with_extended = 0;
  for (const FabricNode& n : f->nodes)
    if (n.description != "hca3")
      for (const FabricPort& p : n.ports) ports_with_extended += !p.counters.empty();
  EXPECT_EQ(s.extended_asked, ports_with_extended) << "PortCountersExtended never asked of hca3";
}

// IBA reserves CapabilityMask on a switch's external ports: whether they
// have extended speeds is port 0's word, so an EDR switch port reads EDR,
// not QDR (its own mask says nothing).
TEST(Sweep, SwitchPortsTakeTheirExtendedSpeedsFromPortZerosCapabilityMask) {
  FakeSubnet s = SmallSubnet();
  s.ext_speed["sw1"] = 2;   // EDR
  s.ext_speed["hca2"] = 2;
  Result<Fabric> f = SweepSubnet(s, SweepOptions{});
  ASSERT_TRUE(f.ok());
  nlohmann::json j = FabricToJson(f.value(), false);
  for (const nlohmann::json& n : j["nodes"]) {
    if (n["description"] != "sw1" && n["description"] != "hca2") continue;
    for (const nlohmann::json& p : n["ports"]) {
      if (!p["remote"].is_null()) {
        EXPECT_EQ(p["speed"], "EDR") << n["description"] << " port " << p["port"];
      }
    }
  }
  auto nb = QueryNeighbour(s, EngineOptions{}, 1);  // hca1's cable leads to sw1 port 1
  ASSERT_TRUE(nb.ok()) << nb.status().message();
  EXPECT_EQ(NeighbourToJson(nb.value())["port"]["speed"], "EDR");
}

TEST(FabricErrors, APortWithItsCableUpButNotActiveIsCritical) {
  FakeSubnet s = SmallSubnet();
  Result<Fabric> f = SweepSubnet(s, SweepOptions{});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(EvaluateFabricErrors(f.value(), {}).severity, 0);
  f.value().nodes[0].ports[2].state = 2;  // INIT, phys LinkUp
  FabricErrors e = EvaluateFabricErrors(f.value(), {});
  EXPECT_EQ(e.severity, 2);
  ASSERT_EQ(e.findings.size(), 1u);
  EXPECT_EQ(e.findings[0].counter, "state");
  EXPECT_EQ(e.findings[0].port, 3);
}

TEST(Sweep, ASilentNodeIsNamedAndTheRestIsStillReported) {
  for (const char* mode : {"silent", "timing_out"}) {
    FakeSubnet s = SmallSubnet();
    (std::string(mode) == "silent" ? s.silent : s.timing_out).insert("hca3");
    SweepOptions o;
    o.engine.timeout_ms = 20;
    Result<Fabric> f = SweepSubnet(s, o);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->nodes.size(), 4u) << mode;
    ASSERT_EQ(f->unreachable.size(), 1u) << mode;
    EXPECT_EQ(f->unreachable[0].path, "0,1,3,1");
    ASSERT_TRUE(f->unreachable[0].via.has_value());
    EXPECT_EQ(f->unreachable[0].via->guid, 0x201u);
    EXPECT_EQ(f->unreachable[0].via->port, 1);
    // The subnet administrator names it: GUID, description, LID.
    ASSERT_TRUE(f->unreachable[0].guid.has_value()) << mode;
    EXPECT_EQ(*f->unreachable[0].guid, 0x104u);
    EXPECT_EQ(f->unreachable[0].description.value_or(""), "hca3");
    EXPECT_EQ(f->unreachable[0].lid.value_or(0), 3u);
    EXPECT_EQ(s.sa_asked, 2) << "one LinkRecord, one NodeRecord";
    EXPECT_EQ(EvaluateFabricErrors(f.value(), {}).severity, 1);
    // And the JSON carries the name both ways.
    Result<Fabric> back = FabricFromJson(FabricToJson(f.value(), false));
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->unreachable.size(), 1u);
    EXPECT_EQ(back->unreachable[0].description.value_or(""), "hca3");
    EXPECT_EQ(back->unreachable[0].lid.value_or(0), 3u);
    EXPECT_EQ(back->unreachable[0].via->guid, 0x201u);
  }
}

TEST(FabricJson, TextWriterWritesTheSameDocumentAsTheTree) {
  FakeSubnet s = SmallSubnet();
  s.nodes[1].counters[2] = {{IB_PC_ERR_SYM_F, 0xffff}};
  s.silent.insert("hca3");
  SweepOptions o;
  o.engine.timeout_ms = 10;
  Result<Fabric> f = SweepSubnet(s, o);
  ASSERT_TRUE(f.ok());
  f.value().nodes[0].description = "quote \" and \\ and \n";
  f.value().nodes[1].description = "caf\xc3\xa9 \x7f";  // UTF-8 and DEL: not the plain-ASCII path
  for (bool counters : {false, true}) {
    std::string text = FabricJsonText(f.value(), counters);
    EXPECT_EQ(text, FabricToJson(f.value(), counters).dump()) << counters;
  }
}

TEST(FabricJson, RoundTripsTopologyAndCounters) {
  FakeSubnet s = SmallSubnet();
  s.nodes[1].counters[2] = {{IB_PC_ERR_SYM_F, 0xffff}};
  Result<Fabric> f = SweepSubnet(s, SweepOptions{});
  ASSERT_TRUE(f.ok());
  nlohmann::json j = FabricToJson(f.value(), true);
  Result<Fabric> back = FabricFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(FabricToJson(back.value(), true)["nodes"], j["nodes"]);
  EXPECT_FALSE(FabricFromJson(nlohmann::json{{"nodes", {{{"guid", "zz"}, {"ports", nlohmann::json::array()}}}}}).ok());
}

}  // namespace
}  // namespace rdmascope::fabric
