// The diagnosis vote over synthetic fleets built in memory (hundreds of
// nodes, a pinglist like the collector's: the own group plus a few other
// groups' nodes), with faults injected into the summaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_paths.h"
#include "collector/readmodel/pinglist.h"

namespace rdmascope::collector::diagnosis {
namespace {

struct Fleet {
  Input in;
  std::vector<std::string> names;
  std::map<std::string, std::string> group;
};

// A path's name field as text.
const std::string& N(const Fleet& f, uint32_t id) { return f.in.names[id]; }

std::string NodeName(int i) { return "n" + std::to_string(i); }
std::string GroupName(int g) { return "g" + std::to_string(g); }

// A clean RC path: 1000 probes, p50 20 us, p99 40 us.
PathSummary Clean(Names& names, const std::string& src, const std::string& dst) {
  PathSummary p;
  p.src = names.Id(src), p.dst = names.Id(dst), p.rail = names.Id("0"), p.transport = names.Id("rc");
  p.src_device = p.dst_device = names.Id("mlx5_0");
  p.interval_start_ms = 1000, p.interval_end_ms = 2000, p.sent = p.received = 1000;
  p.rtt_p50_us = 20.0;
  return p;
}

// nodes nodes in groups groups (node i in group i % groups); each probes its
// own group and cross peers of other groups chosen by a stable hash.
Fleet Build(int nodes, int groups, int cross = 4) {
  Fleet f;
  for (int i = 0; i < nodes; ++i) {
    std::string n = NodeName(i), g = GroupName(i % groups);
    f.names.push_back(n);
    f.group[n] = g;
    f.in.nodes.push_back({n, g, false, 1000});
    f.in.ports.push_back({n, "mlx5_0", 1, "ACTIVE", true, {}, "", "", 0, {}});
  }
  for (const std::string& src : f.names) {
    std::vector<std::pair<uint64_t, std::string>> other;
    for (const std::string& dst : f.names) {
      if (dst == src) continue;
      if (f.group[dst] != f.group[src]) {
        other.push_back({PairHash(src, dst), dst});
        continue;
      }
      f.in.paths.push_back(Clean(f.in.names, src, dst));
    }
    std::sort(other.begin(), other.end());
    for (int k = 0; k < cross && k < static_cast<int>(other.size()); ++k)
      f.in.paths.push_back(Clean(f.in.names, src, other[k].second));
  }
  return f;
}

// Every path probed over UD too (the same pairs, clean).
void AddUd(Fleet& f) {
  const size_t n = f.in.paths.size();
  for (size_t i = 0; i < n; ++i) {
    PathSummary p = f.in.paths[i];
    p.transport = f.in.names.Id("ud");
    f.in.paths.push_back(p);
  }
}

void Lose(PathSummary& p, double ratio) {
  p.lost = static_cast<int64_t>(p.sent * ratio);
  p.received = p.sent - p.lost;
}

void BadNode(Fleet& f, const std::string& node, double loss = 0.3) {
  for (PathSummary& p : f.in.paths)
    if (N(f, p.src) == node || N(f, p.dst) == node) Lose(p, loss);
}

void BadLink(Fleet& f, const std::string& ga, const std::string& gb, double loss = 0.3) {
  for (PathSummary& p : f.in.paths) {
    const std::string &a = f.group[N(f, p.src)], &b = f.group[N(f, p.dst)];
    if ((a == ga && b == gb) || (a == gb && b == ga)) Lose(p, loss);
  }
}

// 0.1 % of probes lost everywhere, and 0.1 % of paths flaky (5 % loss) at random.
void BackgroundLoss(Fleet& f, unsigned seed) {
  std::mt19937 rng(seed);
  std::binomial_distribution<int64_t> lost(1000, 0.001);
  std::uniform_real_distribution<double> u(0, 1);
  for (PathSummary& p : f.in.paths) {
    if (p.received < p.sent) continue;  // already faulty
    p.lost = lost(rng);
    if (u(rng) < 0.001) p.lost = 50;
    p.received = p.sent - p.lost;
  }
}

void Fails(PathSummary& p, const std::string& status) {
  p.received = 0;
  p.lost = p.sent;
  p.rtt_p50_us.reset();
  p.errors_by_status[status] = p.sent;
}

void Moved(Fleet& f, const std::string& node, const std::string& counter, int64_t delta) {
  for (PortFacts& p : f.in.ports)
    if (p.node == node) p.moved.push_back({counter, delta});
}

struct Want {
  std::string scope, subject, kind;
};

std::string Show(const std::vector<Verdict>& vs) {
  std::string s;
  for (const Verdict& v : vs) s += "  " + v.Key() + " conf " + std::to_string(v.confidence) + "\n";
  return s.empty() ? "  (none)\n" : s;
}

void ExpectExactly(const std::vector<Verdict>& got, std::vector<Want> want) {
  std::set<std::string> g, w;
  for (const Verdict& v : got) g.insert(v.Key());
  for (const Want& x : want) w.insert(x.scope + "|" + x.subject + "|" + x.kind);
  EXPECT_EQ(g, w) << "verdicts:\n" << Show(got);
}

const Verdict* Find(const std::vector<Verdict>& vs, const std::string& scope) {
  for (const Verdict& v : vs)
    if (v.scope == scope) return &v;
  return nullptr;
}

TEST(DiagnosisVote, CleanFleetHasNoVerdict) {
  Fleet f = Build(500, 20);
  EXPECT_GT(f.in.paths.size(), 10000u);
  ExpectExactly(Diagnose(f.in), {});
}

TEST(DiagnosisVote, OneBadNodeAmong500) {
  Fleet f = Build(500, 20);
  BadNode(f, "n137");
  Moved(f, "n137", "port_rcv_errors", 42);
  Moved(f, "n5", "port_xmit_discards", 3);  // another node's counter: not evidence here
  auto vs = Diagnose(f.in);
  ExpectExactly(vs, {{"nic", "n137/mlx5_0", "loss"}});
  const Verdict* v = Find(vs, "nic");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->severity, "critical");  // 30 % loss
  EXPECT_GE(v->confidence, 0.99);
  bool cites = false;
  for (const auto& e : v->evidence) {
    if (e["what"] == "counter") {
      EXPECT_EQ(e["node"], "n137") << e.dump();
      cites = cites || (e["counter"] == "port_rcv_errors" && e["delta"] == 42);
    }
  }
  EXPECT_TRUE(cites) << v->evidence.dump();
  ASSERT_FALSE(v->paths.empty());
  for (const auto& p : v->paths) EXPECT_TRUE(p["src"] == "n137" || p["dst"] == "n137") << p.dump();
}

TEST(DiagnosisVote, OneBadGroupLinkAmong20Groups) {
  Fleet f = Build(500, 20);
  BadLink(f, "g3", "g11");
  auto vs = Diagnose(f.in);
  ExpectExactly(vs, {{"group_link", "g11<->g3", "loss"}});
}

// RC retransmits what a lossy NIC drops: only the node's UD paths lose
// probes, every one of them, and that alone names the node.
TEST(DiagnosisVote, LossOnlyOnUdPathsStillNamesTheNode) {
  Fleet f = Build(60, 3);
  AddUd(f);
  for (PathSummary& p : f.in.paths)
    if (N(f, p.transport) == "ud" && (N(f, p.src) == "n7" || N(f, p.dst) == "n7")) Lose(p, 0.3);
  auto vs = Diagnose(f.in);
  ExpectExactly(vs, {{"nic", "n7/mlx5_0", "loss"}});
  const Verdict* v = Find(vs, "nic");
  ASSERT_NE(v, nullptr);
  bool voted_ud = false;
  for (const auto& e : v->evidence) voted_ud = voted_ud || (e["what"] == "paths" && e.value("voted_on", "") == "ud");
  EXPECT_TRUE(voted_ud) << v->evidence.dump();
}

TEST(DiagnosisVote, LossOnlyOnUdPathsAcrossGroupsNamesTheLink) {
  Fleet f = Build(60, 3);
  AddUd(f);
  for (PathSummary& p : f.in.paths) {
    const std::string &a = f.group[N(f, p.src)], &b = f.group[N(f, p.dst)];
    if (N(f, p.transport) == "ud" && ((a == "g0" && b == "g2") || (a == "g2" && b == "g0"))) Lose(p, 0.3);
  }
  ExpectExactly(Diagnose(f.in), {{"group_link", "g0<->g2", "loss"}});
}

// RNR is an RC status: the node's UD echo still answers, and its RC inbound
// paths alone name its application.
TEST(DiagnosisVote, RnrWithCleanUdPathsIsStillTheApplication) {
  Fleet f = Build(60, 3);
  AddUd(f);
  for (PathSummary& p : f.in.paths)
    if (N(f, p.transport) == "rc" && N(f, p.dst) == "n11") Fails(p, "RNR_RETRY_EXC_ERR");
  ExpectExactly(Diagnose(f.in), {{"host", "n11", "rnr"}});
}

// Half of one node's UD paths bad is not a verdict on any transport.
TEST(DiagnosisVote, HalfOfOneTransportIsNoVerdict) {
  Fleet f = Build(60, 3);
  AddUd(f);
  int k = 0;
  for (PathSummary& p : f.in.paths)
    if (N(f, p.transport) == "ud" && (N(f, p.src) == "n7" || N(f, p.dst) == "n7") && (k++ % 2 == 0)) Lose(p, 0.3);
  for (const Verdict& v : Diagnose(f.in)) EXPECT_NE(v.subject.rfind("n7", 0), 0u) << v.Key();
}

TEST(DiagnosisVote, TwoSimultaneousFaults) {
  Fleet f = Build(500, 20);
  BadNode(f, "n42");  // group g2
  BadLink(f, "g7", "g15");
  ExpectExactly(Diagnose(f.in), {{"nic", "n42/mlx5_0", "loss"}, {"group_link", "g15<->g7", "loss"}});
}

TEST(DiagnosisVote, FaultPlusBackgroundLoss) {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    Fleet f = Build(500, 20);
    BadNode(f, "n300");
    BackgroundLoss(f, seed);
    ExpectExactly(Diagnose(f.in), {{"nic", "n300/mlx5_0", "loss"}});
    Fleet g = Build(500, 20);
    BadLink(g, "g0", "g19");
    BackgroundLoss(g, seed);
    ExpectExactly(Diagnose(g.in), {{"group_link", "g0<->g19", "loss"}});
  }
}

// Buffers kept from pass to pass (as the worker keeps them) hold nothing of
// the pass before: fleets of other sizes and faults, one after the other,
// give the verdicts a fresh vote gives.
TEST(DiagnosisVote, KeptBuffersGiveTheVerdictsOfAFreshVote) {
  Fleet big = Build(500, 20);
  BadNode(big, "n42");
  BadLink(big, "g7", "g15");
  BackgroundLoss(big, 3);
  Fleet small = Build(120, 6);
  BadNode(small, "n17");
  Fleet clean = Build(300, 10);
  PassBuffers kept;
  for (const Fleet* f : {&big, &small, &clean, &big, &small}) {
    std::map<std::string, double> medians_kept, medians_fresh;
    const std::vector<Verdict> fresh = Diagnose(f->in, Options(), &medians_fresh);
    const std::vector<Verdict> again = Diagnose(f->in, Options(), &medians_kept, &kept);
    ASSERT_EQ(again.size(), fresh.size());
    for (size_t i = 0; i < fresh.size(); ++i) {
      EXPECT_EQ(again[i].Key(), fresh[i].Key());
      EXPECT_EQ(again[i].confidence, fresh[i].confidence);
      EXPECT_EQ(again[i].evidence, fresh[i].evidence);
    }
    EXPECT_EQ(medians_kept, medians_fresh);
  }
  ExpectExactly(Diagnose(small.in, Options(), nullptr, &kept), {{"nic", "n17/mlx5_0", "loss"}});
}

// The median is the sorted middle (the mean of the two middle values for an
// even count) at every size and in every order: small and large, ties,
// sorted and reversed, and values whose middle no sample brackets.
TEST(DiagnosisMedian, IsTheSortedMiddleAtEverySize) {
  std::mt19937 rng(11);
  auto sorted_middle = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t k = v.size() / 2;
    return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
  };
  std::vector<std::vector<double>> cases;
  for (size_t n : {1u, 2u, 3u, 16383u, 16384u, 16385u, 100000u, 100001u}) {
    std::vector<double> v(n);
    std::lognormal_distribution<double> rtt(1.0, 0.5);
    for (double& x : v) x = rtt(rng);
    cases.push_back(v);
    std::sort(v.begin(), v.end());
    cases.push_back(v);
    std::reverse(v.begin(), v.end());
    cases.push_back(v);
    for (double& x : v) x = static_cast<double>(rng() % 3);  // ties across the middle
    cases.push_back(v);
    // Every 1/1024th value (what a sample of 1,024 sees) small, the middle among the large.
    for (size_t i = 0; i < n; ++i) v[i] = i % std::max<size_t>(1, n / 1024) == 0 ? 1.0 : 1000.0 + static_cast<double>(i);
    cases.push_back(v);
  }
  {
    // The lower of the two middle values lies under the bracket, the upper
    // is its lowest value: 448 of 1,024 sampled values under 5, 5 itself
    // sampled, exactly half of all values under 5.
    const size_t n = 102400, stride = n / 1024;
    std::vector<double> v(n);
    size_t under = 0, rest_under = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i % stride == 0) {
        const size_t j = i / stride;
        v[i] = j < 448 ? 1.0 : j == 448 ? 5.0 : 9.0;
      } else {
        v[i] = rest_under++ < n / 2 - 448 ? 2.0 : 7.0;
      }
      if (v[i] < 5.0) ++under;
    }
    ASSERT_EQ(under, n / 2);
    cases.push_back(v);
  }
  for (size_t c = 0; c < cases.size(); ++c)
    EXPECT_EQ(Median(cases[c]), sorted_middle(cases[c])) << "case " << c << " of " << cases[c].size() << " values";
  EXPECT_EQ(Median({}), 0);
}

TEST(DiagnosisVote, BackgroundLossAloneGivesNothing) {
  Fleet f = Build(500, 20);
  BackgroundLoss(f, 7);
  ExpectExactly(Diagnose(f.in), {});
}

TEST(DiagnosisVote, RnrToOneNodeIsItsApplication) {
  Fleet f = Build(300, 10);
  for (PathSummary& p : f.in.paths)
    if (N(f, p.dst) == "n17") Fails(p, "RNR_RETRY_EXC_ERR");
  auto vs = Diagnose(f.in);
  ExpectExactly(vs, {{"host", "n17", "rnr"}});
  EXPECT_EQ(vs.at(0).severity, "critical");
  int64_t inbound = 0;
  for (const PathSummary& p : f.in.paths) inbound += N(f, p.dst) == "n17" ? 1 : 0;
  EXPECT_EQ(vs.at(0).evidence.at(0)["wc_status"].value("RNR_RETRY_EXC_ERR", 0), 1000 * inbound);
}

TEST(DiagnosisVote, RemoteAccessIsConfigurationAtTheResponder) {
  Fleet f = Build(300, 10);
  for (PathSummary& p : f.in.paths)
    if (N(f, p.dst) == "n3") Fails(p, "REM_ACCESS_ERR");
  ExpectExactly(Diagnose(f.in), {{"host", "n3", "access"}});
}

TEST(DiagnosisVote, PortDownIsThePort) {
  Fleet f = Build(300, 10);
  for (PortFacts& p : f.in.ports)
    if (p.node == "n9") p.active = false, p.state = "DOWN";
  for (PathSummary& p : f.in.paths) {
    if (N(f, p.src) == "n9") p.not_run = true, p.sent = p.received = 0;
    if (N(f, p.dst) == "n9") Fails(p, "RETRY_EXC_ERR");
  }
  auto vs = Diagnose(f.in);
  ExpectExactly(vs, {{"port", "n9/mlx5_0/1", "port_down"}});
  EXPECT_EQ(vs.at(0).severity, "critical");
}

TEST(DiagnosisVote, DownPortNobodyUsesIsNoVerdict) {
  Fleet f = Build(50, 2);
  f.in.ports.push_back({"n1", "mlx5_1", 1, "DOWN", false, {}, "", "", 0, {}});
  ExpectExactly(Diagnose(f.in), {});
}

TEST(DiagnosisVote, SilentAgentIsHostUnreachable) {
  Fleet f = Build(300, 10);
  std::vector<PathSummary> kept;
  for (PathSummary& p : f.in.paths) {
    if (N(f, p.src) == "n21") continue;  // its agent reports nothing
    if (N(f, p.dst) == "n21") Fails(p, "PROBE_DEADLINE");
    kept.push_back(p);
  }
  f.in.paths = kept;
  for (NodeFacts& n : f.in.nodes)
    if (n.name == "n21") n.silent = true;
  auto vs = Diagnose(f.in);
  ExpectExactly(vs, {{"host", "n21", "unreachable"}});
  bool silent = false;
  for (const auto& e : vs.at(0).evidence) silent = silent || e["what"] == "agent_silent";
  EXPECT_TRUE(silent);
}

TEST(DiagnosisVote, DelayOnOneNodeIsLatency) {
  Fleet f = Build(300, 10);
  for (PathSummary& p : f.in.paths)
    if (N(f, p.src) == "n50" || N(f, p.dst) == "n50") p.rtt_p50_us = 5020.0;
  auto vs = Diagnose(f.in);
  ExpectExactly(vs, {{"nic", "n50/mlx5_0", "latency"}});
  EXPECT_EQ(vs.at(0).severity, "warning");
}

// Load lifts the slow half of every path's probes, so the p50s of a delayed
// node stay under the fleet's limit; its min RTT, which load rarely lifts,
// is over the limit taken on the fleet's median min.
TEST(DiagnosisVote, DelayShownOnlyByTheMinIsLatency) {
  Fleet f = Build(300, 10);
  for (PathSummary& p : f.in.paths) {
    p.rtt_min_us = 500.0, p.rtt_p50_us = 4000.0;
    if (N(f, p.src) == "n50" || N(f, p.dst) == "n50") p.rtt_min_us = 5500.0, p.rtt_p50_us = 9000.0;
  }
  auto vs = Diagnose(f.in);
  ExpectExactly(vs, {{"nic", "n50/mlx5_0", "latency"}});
  bool cited = false;
  for (const auto& e : vs.at(0).evidence)
    if (e.value("what", "") == "paths") cited = e.value("median_min_us", 0.0) == 5500 && e.value("min_limit_us", 0.0) == 1500;
  EXPECT_TRUE(cited);
  // Without the min, the same p50s are no verdict (9000 < 3 x 4000).
  for (PathSummary& p : f.in.paths) p.rtt_min_us.reset();
  EXPECT_TRUE(Diagnose(f.in).empty());
}

// A node bad only toward peers of one group is no host fault: the vote
// needs peers in more than one group.
TEST(DiagnosisVote, HostNeedsPeersInMoreThanOneGroup) {
  Fleet f = Build(6, 2, 3);  // the lab: 3 + 3, full mesh
  BadLink(f, "g0", "g1");
  ExpectExactly(Diagnose(f.in), {{"group_link", "g0<->g1", "loss"}});
  Fleet g = Build(6, 2, 3);
  BadNode(g, "n2");
  ExpectExactly(Diagnose(g.in), {{"nic", "n2/mlx5_0", "loss"}});
  // n0 (group g0) loses only toward and from group g1: 60 % of its paths in
  // both directions, but all its bad peers are in one group — no host verdict.
  Fleet h = Build(6, 2, 3);
  for (PathSummary& p : h.in.paths)
    if ((N(h, p.src) == "n0" && h.group[N(h, p.dst)] == "g1") || (N(h, p.dst) == "n0" && h.group[N(h, p.src)] == "g1"))
      Lose(p, 0.3);
  for (const Verdict& v : Diagnose(h.in)) EXPECT_TRUE(v.scope != "host" && v.scope != "nic") << v.Key();
}

// Bad only as destination (its inbound paths lose, its own probes are fine):
// not enough for a host verdict.
TEST(DiagnosisVote, HostNeedsBothDirections) {
  Fleet f = Build(300, 10);
  for (PathSummary& p : f.in.paths)
    if (N(f, p.dst) == "n8") Lose(p, 0.3);
  for (const Verdict& v : Diagnose(f.in)) EXPECT_NE(v.subject.rfind("n8", 0), 0u) << v.Key();
}

TEST(DiagnosisVote, OneOfTwoNicsIsTheNic) {
  Fleet f = Build(60, 3);
  std::vector<PathSummary> more;
  for (const PathSummary& p : f.in.paths) {  // a second rail on mlx5_1
    PathSummary q = p;
    q.rail = f.in.names.Id("1"), q.src_device = q.dst_device = f.in.names.Id("mlx5_1");
    more.push_back(q);
  }
  for (PathSummary& q : more)
    if (N(f, q.src) == "n4" || N(f, q.dst) == "n4") Lose(q, 0.5);
  f.in.paths.insert(f.in.paths.end(), more.begin(), more.end());
  ExpectExactly(Diagnose(f.in), {{"nic", "n4/mlx5_1", "loss"}});
}

TEST(DiagnosisVote, SwitchPortAtTheOtherEndIsCited) {
  Fleet f = Build(100, 4);
  BadNode(f, "n10");
  for (PortFacts& p : f.in.ports)
    if (p.node == "n10") {
      p.switch_guid = "0x0002c90300000001", p.switch_description = "leaf-1", p.switch_port = 7;
      p.switch_moved.push_back({"symbol_error_counter", 9});
    }
  auto vs = Diagnose(f.in);
  ASSERT_EQ(vs.size(), 1u) << Show(vs);
  bool cited = false;
  for (const auto& e : vs[0].evidence)
    cited = cited || (e["what"] == "switch_port" && e["switch"] == "leaf-1" && e["port"] == 7 && e["delta"] == 9);
  EXPECT_TRUE(cited) << vs[0].evidence.dump();
}

}  // namespace
}  // namespace rdmascope::collector::diagnosis
