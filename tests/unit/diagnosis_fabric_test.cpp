// The diagnosis over routed paths and at fleet scale: one verdict per fault —
// a link or a switch found from the routes, a group or the whole fleet when a
// fault spoils most of it — never a storm of host verdicts; host time told
// apart from network time; the fleet's latency against its own baseline.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"

namespace rdmascope::collector::diagnosis {
namespace {

// A two-level tree: `leaves` leaves of `hosts` hosts each, `spines` spines;
// every leaf has one uplink to every spine. Element ids: host cable h
// (h = 0..N-1), uplink (l, s) = N + l * spines + s, leaf switch, spine
// switch. A path's route src -> dst goes up to spine (dst % spines) and back
// (dst -> src goes through spine src % spines): d-mod-k.
struct Tree {
  int leaves, hosts, spines;
  Input in;
  std::vector<std::string> names;
  int N() const { return leaves * hosts; }
  uint32_t HostCable(int h) const { return static_cast<uint32_t>(h); }
  uint32_t Uplink(int l, int s) const { return static_cast<uint32_t>(N() + l * spines + s); }
  uint32_t Leaf(int l) const { return static_cast<uint32_t>(N() + leaves * spines + l); }
  uint32_t Spine(int s) const { return static_cast<uint32_t>(N() + leaves * spines + leaves + s); }
  int LeafOf(int h) const { return h / hosts; }
  void Route(int a, int b, std::vector<uint32_t>* out) const {
    out->push_back(HostCable(a));
    out->push_back(HostCable(b));
    out->push_back(Leaf(LeafOf(a)));
    if (LeafOf(a) == LeafOf(b)) return;
    out->push_back(Leaf(LeafOf(b)));
    const int s = b % spines;
    out->push_back(Uplink(LeafOf(a), s));
    out->push_back(Uplink(LeafOf(b), s));
    out->push_back(Spine(s));
  }
};

std::string Guid(int kind, int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%02x%014x", kind, i);
  return buf;
}

// Every host probes every host of its leaf and `cross` hosts elsewhere, UD
// and RC, 10 probes each; network time 3 us, RTT 8 us.
Tree Build(int leaves, int hosts, int spines, int cross, unsigned seed = 1) {
  Tree t{leaves, hosts, spines, {}, {}};
  const int n = t.N();
  for (int h = 0; h < n; ++h) {
    t.names.push_back("node" + std::to_string(h));
    t.in.nodes.push_back({t.names[h], "leaf:" + Guid(1, t.LeafOf(h)), false, 1000});
    t.in.ports.push_back({t.names[h], "mlx5_0", 1, "ACTIVE", true, {}, "", "", 0, {}});
  }
  for (int h = 0; h < n; ++h)
    t.in.elements.push_back({"link", Guid(3, h) + "/1<->" + Guid(1, t.LeafOf(h)) + "/" + std::to_string(h % hosts + 1),
                             "host cable", {}, false});
  for (int l = 0; l < leaves; ++l)
    for (int s = 0; s < spines; ++s)
      t.in.elements.push_back({"link", Guid(1, l) + "/" + std::to_string(hosts + s + 1) + "<->" + Guid(2, s) + "/" +
                                           std::to_string(l + 1),
                               "uplink", {}, false});
  for (int l = 0; l < leaves; ++l) t.in.elements.push_back({"switch", Guid(1, l), "leaf", {}, false});
  for (int s = 0; s < spines; ++s) t.in.elements.push_back({"switch", Guid(2, s), "spine", {}, false});
  std::mt19937 rng(seed);
  for (int a = 0; a < n; ++a) {
    std::set<int> dsts;
    for (int b = 0; b < n; ++b)
      if (b != a && t.LeafOf(b) == t.LeafOf(a)) dsts.insert(b);
    std::uniform_int_distribution<int> any(0, n - 1);
    for (int k = 0; k < cross * 20 && static_cast<int>(dsts.size()) < hosts - 1 + cross; ++k) {
      int b = any(rng);
      if (t.LeafOf(b) != t.LeafOf(a)) dsts.insert(b);
    }
    for (int b : dsts)
      for (const char* tr : {"ud", "rc"}) {
        PathSummary p;
        p.src = t.in.names.Id(t.names[a]), p.dst = t.in.names.Id(t.names[b]);
        p.rail = t.in.names.Id("0"), p.transport = t.in.names.Id(tr);
        p.src_device = p.dst_device = t.in.names.Id("mlx5_0");
        p.interval_start_ms = 1000, p.interval_end_ms = 2000, p.sent = p.received = 10;
        p.rtt_p50_us = 8.0, p.rtt_min_us = 6.0, p.network_p50_us = 3.0;
        t.Route(a, b, p.crosses.ids());
        t.Route(b, a, p.crosses.ids());
        t.in.paths.push_back(p);
      }
  }
  return t;
}

// Loses each probe of every path crossing element e with probability `loss`
// (RC: only when every probe is lost does it show, as errors).
void Lossy(Tree& t, uint32_t e, double loss, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::binomial_distribution<int64_t> lost(10, loss);
  for (PathSummary& p : t.in.paths) {
    if (std::find(p.crosses.begin(), p.crosses.end(), e) == p.crosses.end()) continue;
    const int64_t l = loss >= 1 ? 10 : lost(rng);
    const bool rc = t.in.names[p.transport] == "rc";
    if (rc && l < 10) continue;
    p.lost = l, p.received = 10 - l;
    if (rc) p.errors_by_status["RETRY_EXC_ERR"] = 10;
    if (p.received == 0) p.rtt_p50_us.reset(), p.network_p50_us.reset(), p.rtt_min_us.reset();
  }
}

std::string Show(const std::vector<Verdict>& vs) {
  std::string s;
  for (const Verdict& v : vs) s += "  " + v.Key() + " conf " + std::to_string(v.confidence) + "\n";
  return s.empty() ? "  (none)\n" : s;
}

void ExpectExactly(const std::vector<Verdict>& got, const std::set<std::string>& want) {
  std::set<std::string> g;
  for (const Verdict& v : got) g.insert(v.Key());
  EXPECT_EQ(g, want) << "verdicts:\n" << Show(got);
}

TEST(DiagnosisFabric, CleanTreeHasNoVerdict) {
  Tree t = Build(8, 8, 4, 6);
  ExpectExactly(Diagnose(t.in), {});
}

TEST(DiagnosisFabric, LossyUplinkIsTheLinkAt30And5Percent) {
  for (double loss : {0.3, 0.05}) {
    Tree t = Build(8, 8, 4, 6);
    Lossy(t, t.Uplink(2, 1), loss);
    ExpectExactly(Diagnose(t.in), {"link|" + t.in.elements[t.Uplink(2, 1)].subject + "|loss"});
  }
}

TEST(DiagnosisFabric, DeadSpineIsTheSwitch) {
  Tree t = Build(8, 8, 4, 6);
  Lossy(t, t.Spine(3), 1.0);
  ExpectExactly(Diagnose(t.in), {"switch|" + Guid(2, 3) + "|unreachable"});
}

TEST(DiagnosisFabric, DeadLeafIsTheSwitchNotItsHosts) {
  Tree t = Build(8, 8, 4, 6);
  Lossy(t, t.Leaf(5), 1.0);
  ExpectExactly(Diagnose(t.in), {"switch|" + Guid(1, 5) + "|unreachable"});
}

// A host that answers nothing is the host (its agent silent or not yet),
// not its one NIC, not its cable.
TEST(DiagnosisFabric, DeadHostIsTheHostNotItsCable) {
  Tree t = Build(8, 8, 4, 6);
  Lossy(t, t.HostCable(17), 1.0);
  ExpectExactly(Diagnose(t.in), {"host|node17|unreachable"});
  for (NodeFacts& n : t.in.nodes)
    if (n.name == "node17") n.silent = true;
  ExpectExactly(Diagnose(t.in), {"host|node17|unreachable"});
}

// The cable's own counters rose: the cable, not the host behind it.
TEST(DiagnosisFabric, HostCableWithSymbolErrorsIsTheCable) {
  Tree t = Build(8, 8, 4, 6);
  Lossy(t, t.HostCable(17), 0.3);
  t.in.elements[t.HostCable(17)].moved.push_back({"symbol_error", 500});
  ExpectExactly(Diagnose(t.in), {"link|" + t.in.elements[t.HostCable(17)].subject + "|loss"});
}

// Errors counted only by the host adapter's own port (its receiver) with
// every path of the adapter lossy: the NIC, with the cable's counters as
// evidence, not the cable before it.
TEST(DiagnosisFabric, ErrorsOnlyAtTheAdapterEndAreTheNic) {
  Tree t = Build(8, 8, 4, 6);
  Lossy(t, t.HostCable(17), 0.3);
  t.in.elements[t.HostCable(17)].moved.push_back({"port_rcv_errors", 40});
  t.in.elements[t.HostCable(17)].rose_at_host_only = true;
  t.in.elements[t.HostCable(17)].host_node = "node17", t.in.elements[t.HostCable(17)].host_device = "mlx5_0";
  ExpectExactly(Diagnose(t.in), {"nic|node17/mlx5_0|loss"});
  t.in.elements[t.HostCable(17)].rose_at_host_only = false;  // the switch end counted them too
  ExpectExactly(Diagnose(t.in), {"link|" + t.in.elements[t.HostCable(17)].subject + "|loss"});
}

TEST(DiagnosisFabric, FleetWideLossIsOneFleetVerdict) {
  Tree t = Build(8, 8, 4, 6);
  for (int l = 0; l < 8; ++l) Lossy(t, t.Leaf(l), 0.4, 100 + l);
  auto vs = Diagnose(t.in);
  ExpectExactly(vs, {"fleet|all|loss"});
}

TEST(DiagnosisFabric, TwoFaultsAtOnce) {
  Tree t = Build(8, 8, 4, 6);
  Lossy(t, t.Uplink(1, 0), 0.3);
  Lossy(t, t.HostCable(60), 1.0, 9);
  ExpectExactly(Diagnose(t.in),
                {"link|" + t.in.elements[t.Uplink(1, 0)].subject + "|loss", "host|node60|unreachable"});
}

TEST(DiagnosisFabric, BackgroundLossAloneIsNothingAndAFaultStillShows) {
  Tree t = Build(8, 8, 4, 6);
  for (uint32_t e = 0; e < t.in.elements.size(); ++e) Lossy(t, e, 0.0002, e);
  ExpectExactly(Diagnose(t.in), {});
  Lossy(t, t.HostCable(33), 0.1, 3);
  ExpectExactly(Diagnose(t.in), {"nic|node33/mlx5_0|loss"});
}

// Every UD probe of the fleet lost with probability `rate` (RC shows loss
// only when all ten are lost: never here).
void Background(Tree& t, double rate, unsigned seed) {
  std::mt19937 rng(seed);
  std::binomial_distribution<int64_t> lost(10, rate);
  for (PathSummary& p : t.in.paths) {
    if (t.in.names[p.transport] != "ud") continue;
    p.lost = lost(rng), p.received = 10 - p.lost;
  }
}

// Background loss of 0.2 % a probe over a fleet of hundreds of cables: by
// chance some cable's few paths lose five or six probes every pass, as many
// as a real fault on it would; no verdict unless that is beyond what chance
// gives at the rest's rate over so many cables. A lossy uplink still shows.
TEST(DiagnosisFabric, BackgroundLossOnManyCablesIsNotAFault) {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    Tree t = Build(32, 16, 8, 8, seed);
    Background(t, 0.002, seed);
    ExpectExactly(Diagnose(t.in), {});
    Lossy(t, t.Uplink(5, 3), 0.3, seed);
    ExpectExactly(Diagnose(t.in), {"link|" + t.in.elements[t.Uplink(5, 3)].subject + "|loss"});
  }
}

// A leaf that dies takes its hosts' links down: one switch verdict, not a
// port_down per host.
TEST(DiagnosisFabric, LeafDownWithItsHostsPortsDownIsOneSwitchVerdict) {
  Tree t = Build(8, 8, 4, 6);
  Lossy(t, t.Leaf(2), 1.0);
  for (PortFacts& p : t.in.ports) {
    const int h = std::stoi(p.node.substr(4));
    p.switch_guid = Guid(1, t.LeafOf(h));
    if (t.LeafOf(h) == 2) p.active = false, p.state = "DOWN";
  }
  for (PathSummary& p : t.in.paths)
    if (t.LeafOf(std::stoi(t.in.names[p.src].substr(4))) == 2) p.not_run = true, p.sent = p.received = p.lost = 0;
  ExpectExactly(Diagnose(t.in), {"switch|" + Guid(1, 2) + "|unreachable"});
}

// Counters that rose on a link nobody's paths blame: a warning on the link.
TEST(DiagnosisFabric, CountersAloneAreLinkErrors) {
  Tree t = Build(4, 4, 2, 4);
  t.in.elements[t.Uplink(0, 1)].moved.push_back({"link_downed", 1});
  t.in.elements[t.Uplink(1, 1)].moved.push_back({"symbol_error", 3});  // under its threshold
  auto vs = Diagnose(t.in);
  ExpectExactly(vs, {"link|" + t.in.elements[t.Uplink(0, 1)].subject + "|link_errors"});
  EXPECT_EQ(vs.at(0).severity, "warning");
}

// A switch that came back downed every cable it has: one verdict on the
// switch, and none at all on the cables of a switch already named.
TEST(DiagnosisFabric, CablesOfOneSwitchThatRoseTogetherAreTheSwitch) {
  Tree t = Build(4, 4, 2, 4);
  for (int l = 0; l < 4; ++l) t.in.elements[t.Uplink(l, 1)].moved.push_back({"link_downed", 1});
  auto vs = Diagnose(t.in);
  ExpectExactly(vs, {"switch|" + Guid(2, 1) + "|link_errors"});
  Lossy(t, t.Spine(1), 1.0);
  ExpectExactly(Diagnose(t.in), {"switch|" + Guid(2, 1) + "|unreachable"});
}

// Network time rose fleet-wide by half against the remembered baseline: one
// fleet verdict, and no path verdicts.
TEST(DiagnosisFabric, FleetLatencyAgainstTheBaseline) {
  Tree t = Build(8, 8, 4, 6);
  std::map<std::string, double> base = UpdateNetworkBaseline({}, t.in);
  EXPECT_DOUBLE_EQ(base.at("0|ud"), 3.0);
  t.in.network_baseline_us = base;
  ExpectExactly(Diagnose(t.in), {});
  for (PathSummary& p : t.in.paths) *p.network_p50_us *= 1.5, *p.rtt_p50_us += 1.5;
  ExpectExactly(Diagnose(t.in), {"fleet|all|latency"});
  // A slow fleet does not become the norm.
  EXPECT_DOUBLE_EQ(UpdateNetworkBaseline(base, t.in).at("0|ud"), 3.0);
}

// Total RTT up, network time not: the host is busy, not the network.
TEST(DiagnosisFabric, SlowResponderIsHostBusyNotLatency) {
  Tree t = Build(8, 8, 4, 6);
  for (PathSummary& p : t.in.paths) {
    p.rtt_p50_us = 400.0;
    if (t.in.names[p.src] == "node9" || t.in.names[p.dst] == "node9") p.rtt_p50_us = 3000.0;
  }
  ExpectExactly(Diagnose(t.in), {"host|node9|host_busy"});
  for (PathSummary& p : t.in.paths)
    if (t.in.names[p.src] == "node9" || t.in.names[p.dst] == "node9") p.network_p50_us = 200.0;
  ExpectExactly(Diagnose(t.in), {"nic|node9/mlx5_0|latency"});
}

// A down port takes only its own paths: the same node's other device is left
// to the vote.
TEST(DiagnosisFabric, PortDownTakesOnlyItsOwnPaths) {
  Tree t = Build(4, 4, 2, 4);
  std::vector<PathSummary> more;
  for (const PathSummary& p : t.in.paths) {
    PathSummary q = p;
    q.rail = t.in.names.Id("1"), q.src_device = q.dst_device = t.in.names.Id("mlx5_1");
    q.crosses.clear();
    more.push_back(q);
  }
  for (PathSummary& q : more) {
    if (t.in.names[q.src] == "node5") q.not_run = true, q.sent = q.received = 0;
    if (t.in.names[q.dst] == "node5") q.lost = 10, q.received = 0;
  }
  t.in.paths.insert(t.in.paths.end(), more.begin(), more.end());
  t.in.ports.push_back({"node5", "mlx5_1", 1, "DOWN", false, {}, "", "", 0, {}});
  auto vs = Diagnose(t.in);
  ExpectExactly(vs, {"port|node5/mlx5_1/1|port_down"});
  int64_t cited = 0;
  for (const auto& p : vs.at(0).paths) cited += p["rail"] == "1" ? 1 : 0;
  EXPECT_EQ(cited, static_cast<int64_t>(vs.at(0).paths.size()));
}

}  // namespace
}  // namespace rdmascope::collector::diagnosis
