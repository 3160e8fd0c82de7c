// Diagnoses end to end inside one process: reports stored, the worker's
// passes on a fake clock, hysteresis, GET /api/v1/diagnoses and /metrics.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <httplib.h>

#include "collector/diagnosis/diagnosis_input.h"
#include "collector/diagnosis/diagnosis_track.h"
#include "collector/diagnosis/diagnosis_worker.h"
#include "collector/store/store_rows.h"
#include "tests/support/test_reports.h"
#include "tests/collector/test_server.h"
#include "tests/collector/rdmactl_run.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;
using testing::CliRun;
using testing::Rdmactl;
using testing::TestCollector;

constexpr int64_t kT0 = 1700000000000;
constexpr int64_t kIntervalMs = 10000;

// Six nodes, groups a (n0..n2) and b (n3..n5), full mesh (each probes its
// peer's rxe1 from its own rxe0, so a node's fault is the host, not a NIC); round k ends at
// kT0 + k intervals. bad: the node whose every path loses 30 % ("" none), or
// with slow: whose every path has a 6 ms p50. bad_symbol_error: that node's
// port counter symbol_error in this round (the others stay at 0).
void Round(Storage& store, int k, const std::string& bad, bool slow = false, int64_t bad_symbol_error = 0) {
  const int64_t t = kT0 + k * kIntervalMs;
  for (int i = 0; i < 6; ++i) {
    const std::string node = "n" + std::to_string(i);
    json r = MakeReport(node + "-r" + std::to_string(k), node, t, 4, node == bad ? bad_symbol_error : 0);
    r["labels"] = {{"group", i < 3 ? "a" : "b"}};
    for (int j = 0; j < 6; ++j) {
      if (j == i) continue;
      const std::string peer = "n" + std::to_string(j);
      const bool hit = node == bad || peer == bad;
      r["probes"].push_back(MakeProbe(peer, t, 0, hit && !slow ? 70 : 100));
      if (hit && slow) r["probes"].back()["summary"]["rtt_us"]["p50"] = 6000.0;
    }
    auto s = store.writer.Ingest(r, t);
    ASSERT_TRUE(s.ok()) << s.status().message();
  }
}

json Get(int port, const std::string& path) {
  httplib::Client cli("127.0.0.1", port);
  auto res = cli.Get(path.c_str());
  EXPECT_TRUE(res) << path;
  if (!res) return json();
  EXPECT_EQ(res->status, 200) << path << ": " << res->body;
  if (path == "/metrics") return res->body;
  return json::parse(res->body, nullptr, false);
}

class DiagnosisStore : public ::testing::Test {
 protected:
  TestCollector c_;
  int64_t now_ = kT0;
  std::vector<std::string> log_;
  DiagnosisWorker worker_{c_.store(), DiagnosisWorkerOptions(), [this] { return now_; },
                          [this](const std::string& l) { log_.push_back(l); }};

  DiagnosisPass Pass(int round) {
    now_ = kT0 + round * kIntervalMs + 1000;
    auto p = worker_.RunPass();
    EXPECT_TRUE(p.ok()) << p.status().message();
    return p.ok() ? p.value() : DiagnosisPass();
  }
};

TEST_F(DiagnosisStore, OpensServesCountsAndClosesWithoutFlapping) {
  for (int k = 0; k < 2; ++k) {
    Round(c_.store(), k, "");
    EXPECT_EQ(Pass(k).verdicts, 0) << "clean round " << k;
  }
  EXPECT_EQ(Get(c_.port(), "/api/v1/diagnoses")["diagnoses"].size(), 0u);

  Round(c_.store(), 2, "n1");
  DiagnosisPass opened = Pass(2);
  ASSERT_EQ(opened.opened, std::vector<std::string>{"host|n1|loss"});
  json d = Get(c_.port(), "/api/v1/diagnoses")["diagnoses"];
  ASSERT_EQ(d.size(), 1u) << d.dump();
  EXPECT_EQ(d[0]["scope"], "host");
  EXPECT_EQ(d[0]["subject"], "n1");
  EXPECT_EQ(d[0]["kind"], "loss");
  EXPECT_EQ(d[0]["severity"], "critical");
  EXPECT_EQ(d[0]["open"], true);
  EXPECT_EQ(d[0]["since_ms"], kT0 + 2 * kIntervalMs - 10000);  // the first bad summary's start
  EXPECT_EQ(d[0]["paths"].size(), 10u);                         // 5 peers, both directions
  EXPECT_EQ(d[0]["evidence"][0]["as_src"], "5/5");
  const std::string metrics = Get(c_.port(), "/metrics").get<std::string>();
  EXPECT_NE(metrics.find("rdmascope_diagnoses_open{scope=\"host\",kind=\"loss\"} 1"), std::string::npos) << metrics;

  // The fault pauses for one round: still the same open diagnosis.
  Round(c_.store(), 3, "");
  DiagnosisPass quiet = Pass(3);
  EXPECT_EQ(quiet.verdicts, 0);
  EXPECT_TRUE(quiet.closed.empty());
  Round(c_.store(), 4, "n1");
  EXPECT_TRUE(Pass(4).opened.empty());
  d = Get(c_.port(), "/api/v1/diagnoses")["diagnoses"];
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0]["runs"], 2);

  // It came back once (a flap): three clean rounds close it, not two.
  Round(c_.store(), 5, "");
  EXPECT_TRUE(Pass(5).closed.empty());
  Round(c_.store(), 6, "");
  EXPECT_TRUE(Pass(6).closed.empty());
  Round(c_.store(), 7, "");
  EXPECT_EQ(Pass(7).closed, std::vector<std::string>{"host|n1|loss"});
  EXPECT_EQ(Get(c_.port(), "/api/v1/diagnoses")["diagnoses"].size(), 0u);
  json all = Get(c_.port(), "/api/v1/diagnoses?all=1")["diagnoses"];
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]["open"], false);
  EXPECT_EQ(all[0]["closed_at_ms"], now_);
  EXPECT_EQ(c_.Rows("diagnoses"), 1);
  EXPECT_EQ(Get(c_.port(), "/metrics").get<std::string>().find("rdmascope_diagnoses_open{"), std::string::npos);
}

// Each pass publishes what its paths covered: group pairs per rail (here a
// and b, each probed by all three nodes of the other), no fabric routes.
TEST_F(DiagnosisStore, CoverageOfTheLastPass) {
  httplib::Client cli("127.0.0.1", c_.port());
  auto before = cli.Get("/api/v1/coverage");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 503) << before->body;
  Round(c_.store(), 0, "");
  Pass(0);
  json c = Get(c_.port(), "/api/v1/coverage");
  ASSERT_EQ(c["rails"].size(), 1u) << c.dump();
  EXPECT_EQ(c["rails"][0]["groups"], 2);
  EXPECT_EQ(c["rails"][0]["group_pairs"], 2);
  EXPECT_EQ(c["rails"][0]["group_pairs_covered"], 2);
  EXPECT_EQ(c["fabric"]["paths_routed"], 0);
  EXPECT_EQ(c["fabric"]["paths_unrouted"], 30);
  // Without a swept fabric: no inter-switch cable to cover, no link coverage target handed out.
  EXPECT_EQ(c["fabric"]["switch_links_covered"], 0);
  EXPECT_EQ(c["fabric"]["coverage_targets"], 0);
  EXPECT_EQ(c["fabric"]["min_paths_per_link"], 2);
  EXPECT_EQ(c_.store().read.snapshot().CoverageTargetsNow()->targets, 0);
  EXPECT_EQ(c["at_ms"], now_);
}

TEST_F(DiagnosisStore, BadQueryIs400) {
  httplib::Client cli("127.0.0.1", c_.port());
  auto res = cli.Get("/api/v1/diagnoses?all=yes");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("\"all\""), std::string::npos) << res->body;
}

// A node that stops reporting: its peers' probes to it fail; once it is
// silent the vote needs only the destination side.
TEST_F(DiagnosisStore, SilentAgentIsUnreachableHost) {
  Round(c_.store(), 0, "");
  for (int k = 1; k <= 3; ++k) {
    const int64_t t = kT0 + k * kIntervalMs;
    for (int i = 0; i < 5; ++i) {  // n5 reports no more
      const std::string node = "n" + std::to_string(i);
      json r = MakeReport(node + "-r" + std::to_string(k), node, t);
      r["labels"] = {{"group", i < 3 ? "a" : "b"}};
      for (int j = 0; j < 6; ++j)
        if (j != i) r["probes"].push_back(MakeProbe("n" + std::to_string(j), t, j == 5 ? 100 : 0, j == 5 ? 0 : 100));
      ASSERT_TRUE(c_.store().writer.Ingest(r, t).ok());
    }
    Pass(k);
  }
  json d = Get(c_.port(), "/api/v1/diagnoses")["diagnoses"];
  ASSERT_EQ(d.size(), 1u) << d.dump();
  EXPECT_EQ(d[0]["scope"], "host");
  EXPECT_EQ(d[0]["subject"], "n5");
  EXPECT_EQ(d[0]["kind"], "unreachable");
}

// Every path of an Input by name, in its order: inputs numbered apart compare.
std::vector<std::string> PathsByName(const diagnosis::Input& in) {
  std::vector<std::string> out;
  auto group = [&](int32_t g) { return g < 0 ? std::string("-") : in.group_names[static_cast<size_t>(g)]; };
  for (const diagnosis::PathSummary& p : in.paths) {
    std::string errors;
    for (const auto& [k, n] : p.errors_by_status) errors += k + "=" + std::to_string(n) + ",";
    out.push_back(in.names[p.src] + ">" + in.names[p.dst] + " " + in.names[p.rail] + "/" + in.names[p.transport] + " " +
                  in.names[p.src_device] + ":" + std::to_string(p.src_port) + ">" + in.names[p.dst_device] + ":" +
                  std::to_string(p.dst_port) + " " + group(p.src_group) + ">" + group(p.dst_group) + " " +
                  std::to_string(p.interval_end_ms) + " " + std::to_string(p.sent) + "/" + std::to_string(p.received) +
                  " " + errors);
  }
  return out;
}

// Loads that keep unchanged nodes' paths give what a load from nothing
// gives: some nodes report and some do not, one goes silent and comes back,
// and one node's cable moves to another leaf (the paths of every node that
// probes it change group, though those nodes' states did not).
TEST_F(DiagnosisStore, KeptPathsEqualAFreshLoad) {
  DiagnosisSourceOptions o;
  o.report_interval_ms = kIntervalMs;
  diagnosis::Input kept;
  DiagnosisInputCache cache;
  auto report = [&](int k, const std::vector<int>& who, const std::string& n0_leaf, int lossy) {
    const int64_t t = kT0 + k * kIntervalMs;
    for (int i : who) {
      const std::string node = "n" + std::to_string(i);
      json r = MakeReport(node + "-r" + std::to_string(k), node, t);
      r["labels"] = json::object();  // unlabelled: a path's ends are grouped by the leaf each device is cabled to
      const std::string leaf = i == 0 ? n0_leaf : i < 3 ? "0x000000000000000a" : "0x000000000000000b";
      for (const char* device : {"rxe0", "rxe1"})
        r["neighbours"].push_back({{"device", device}, {"local_port", 1}, {"guid", leaf}, {"type", "switch"},
                                   {"description", "leaf " + leaf}, {"port", {{"port", 1 + i}, {"state", "ACTIVE"}}}});
      for (int j = 0; j < 6; ++j)
        if (j != i) r["probes"].push_back(MakeProbe("n" + std::to_string(j), t, j == lossy ? 5 : 0, j == lossy ? 60 : 100));
      ASSERT_TRUE(c_.store().writer.Ingest(r, t).ok());
    }
  };
  const std::string a = "0x000000000000000a", c = "0x000000000000000c";
  struct Step {
    std::vector<int> who;
    std::string n0_leaf;
    int lossy;
    size_t kept;  // blocks the cached load keeps
  };
  const std::vector<Step> steps = {
      {{0, 1, 2, 3, 4, 5}, a, -1, 0},
      {{0, 1, 2}, a, 4, 3},           // n3..n5 did not report: theirs are kept
      {{}, a, -1, 3},                 // nobody reported: n0..n2 kept, n3..n5 silent by now
      {{0, 1, 2, 3, 4}, a, -1, 0},    // n5 stays silent
      {{0, 1, 2, 3, 4, 5}, a, 2, 0},  // n5 is back
      {{0}, c, -1, 0},                // n0 moves to leaf c: every path to it changes group
      {{1, 2, 3, 4, 5}, c, -1, 1},    // n0 kept
  };
  for (size_t k = 0; k < steps.size(); ++k) {
    report(static_cast<int>(k), steps[k].who, steps[k].n0_leaf, steps[k].lossy);
    c_.store().read.WaitForPublishedSnapshot();
    const int64_t now = kT0 + static_cast<int64_t>(k) * kIntervalMs + 1000;
    ASSERT_TRUE(LoadDiagnosisInput(c_.store(), now, o, &kept, nullptr, &cache).ok());
    auto fresh = LoadDiagnosisInput(c_.store(), now, o);
    ASSERT_TRUE(fresh.ok()) << fresh.status().message();
    EXPECT_EQ(PathsByName(kept), PathsByName(fresh.value())) << "step " << k;
    EXPECT_EQ(cache.blocks.kept(), steps[k].kept) << "step " << k;
    EXPECT_FALSE(kept.paths.empty()) << "step " << k;
  }
}

// A pair its source stopped probing (its pinglist changed) is not a path of
// the next pass, although its last summary is still within the window: the
// pass holds what each source probes now.
TEST_F(DiagnosisStore, APairItsSourceNoLongerProbesIsNoPath) {
  DiagnosisSourceOptions o;
  o.report_interval_ms = kIntervalMs;
  auto report = [&](int k, const std::vector<std::string>& targets) {
    const int64_t t = kT0 + k * kIntervalMs;
    json r = MakeReport("n0-r" + std::to_string(k), "n0", t);
    for (const std::string& peer : targets) r["probes"].push_back(MakeProbe(peer, t, 0, 100));
    ASSERT_TRUE(c_.store().writer.Ingest(r, t).ok());
    c_.store().read.WaitForPublishedSnapshot();
  };
  auto destinations = [&](int k) {
    auto in = LoadDiagnosisInput(c_.store(), kT0 + k * kIntervalMs + 1000, o);
    EXPECT_TRUE(in.ok()) << in.status().message();
    std::set<std::string> out;
    if (in.ok())
      for (const diagnosis::PathSummary& p : in.value().paths) out.insert(in.value().names[p.dst]);
    return out;
  };
  report(0, {"n1", "n2"});
  EXPECT_EQ(destinations(0), (std::set<std::string>{"n1", "n2"}));
  report(1, {"n2", "n3"});  // the pinglist changed: n1 out, n3 in
  EXPECT_EQ(destinations(1), (std::set<std::string>{"n2", "n3"})) << "n1's summary of round 0 is in the window";
}

TEST_F(DiagnosisStore, WorkerStopsPromptly) {
  DiagnosisWorkerOptions o;
  o.interval_ms = 3600 * 1000;
  DiagnosisWorker w(c_.store(), o, [] { return kT0; }, [](const std::string&) {});
  w.Start();
  auto start = std::chrono::steady_clock::now();
  w.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(DiagnosisStore, RdmactlDiagnoseExitCodesAndOutput) {
  const std::string url = "--collector http://127.0.0.1:" + std::to_string(c_.port());
  Round(c_.store(), 0, "");
  Pass(0);
  CliRun none = Rdmactl("diagnose " + url);
  EXPECT_EQ(none.code, 0) << none.out;
  EXPECT_NE(none.out.find("RDMA OK"), std::string::npos) << none.out;

  Round(c_.store(), 1, "n4", /*slow=*/true);
  Pass(1);
  CliRun warn = Rdmactl("diagnose " + url);
  EXPECT_EQ(warn.code, 1) << warn.out;
  EXPECT_NE(warn.out.find("warning host n4: latency"), std::string::npos) << warn.out;
  EXPECT_NE(warn.out.find("median p50 6000 us"), std::string::npos) << warn.out;
  EXPECT_NE(warn.out.find("as source 5/5, as destination 5/5, peers in group(s) a, b"), std::string::npos) << warn.out;

  Round(c_.store(), 2, "n1");
  Pass(2);
  CliRun crit = Rdmactl("diagnose " + url);
  EXPECT_EQ(crit.code, 2) << crit.out;
  EXPECT_NE(crit.out.find("critical host n1: loss"), std::string::npos) << crit.out;
  EXPECT_NE(crit.out.find("paths: "), std::string::npos) << crit.out;
  CliRun js = Rdmactl("--json diagnose " + url);
  EXPECT_EQ(js.code, 2);
  json parsed = json::parse(js.out, nullptr, false);
  ASSERT_TRUE(parsed.is_object()) << js.out;
  EXPECT_EQ(parsed["exit_code"], 2);
  EXPECT_EQ(parsed["diagnoses"].size(), 2u) << js.out;  // n4's latency, missed once, is still open
  for (int k = 3; k <= 5; ++k) {
    Round(c_.store(), k, "");
    Pass(k);
  }
  CliRun after = Rdmactl("diagnose " + url);
  EXPECT_EQ(after.code, 0) << after.out;
  CliRun all = Rdmactl("diagnose --all " + url);
  EXPECT_EQ(all.code, 0) << all.out;
  EXPECT_NE(all.out.find("CLOSED critical host n1: loss"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("CLOSED warning host n4: latency"), std::string::npos) << all.out;

  CliRun help = Rdmactl("diagnose --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("exit 1  WARNING"), std::string::npos) << help.out;
  CliRun bad = Rdmactl("diagnose --bogus");
  EXPECT_EQ(bad.code, 2);
  CliRun gone = Rdmactl("diagnose --collector http://127.0.0.1:1");
  EXPECT_EQ(gone.code, 2);
  EXPECT_NE(gone.out.find("unreachable"), std::string::npos) << gone.out;
}

diagnosis::Verdict V(const std::string& subject) {
  diagnosis::Verdict v;
  v.scope = "host", v.subject = subject, v.kind = "loss";
  return v;
}

// Opens after open_after runs in a row; closes after close_after report
// intervals without it, counted in time, not in runs.
TEST(DiagnosisTracker, OpenAfterAndCloseAfterIntervals) {
  diagnosis::Tracker t({2, 2});
  const int64_t iv = 4000;
  diagnosis::OpenDiagnoses open;
  EXPECT_TRUE(t.Observe({V("x")}, open, 0, iv).upsert.empty());  // seen once: not yet
  EXPECT_TRUE(t.Observe({}, open, 2000, iv).upsert.empty());      // streak broken
  EXPECT_TRUE(t.Observe({V("x")}, open, 4000, iv).upsert.empty());
  auto s = t.Observe({V("x")}, open, 6000, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  open["host|x|loss"] = {};
  // Last seen at 6000: closes once 8000 ms (two intervals) have gone by without it.
  for (int64_t at = 8000; at < 14000; at += 2000) EXPECT_TRUE(t.Observe({}, open, at, iv).close.empty()) << at;
  EXPECT_EQ(t.Observe({}, open, 14000, iv).close, std::vector<std::string>{"host|x|loss"});
}

// A fault that comes and goes stays one diagnosis: each return counts a flap
// (cited in the evidence) and lengthens the wait before it closes.
TEST(DiagnosisTracker, FlappingStaysOneDiagnosisAndCountsFlaps) {
  diagnosis::Tracker t({1, 2, 6});
  const int64_t iv = 10000;
  diagnosis::OpenDiagnoses open;
  ASSERT_EQ(t.Observe({V("x")}, open, 0, iv).upsert.size(), 1u);
  open["host|x|loss"] = {};
  EXPECT_TRUE(t.Observe({}, open, 5000, iv).close.empty());
  EXPECT_TRUE(t.Observe({}, open, 15000, iv).close.empty());
  auto back = t.Observe({V("x")}, open, 19000, iv);  // back before it closed: one flap
  ASSERT_EQ(back.upsert.size(), 1u);
  EXPECT_EQ(back.upsert[0].Key(), "host|x|loss");
  bool flaps = false;
  for (const auto& e : back.upsert[0].evidence) flaps = flaps || (e["what"] == "flapping" && e["flaps"] == 1);
  EXPECT_TRUE(flaps) << back.upsert[0].evidence.dump();
  // Now it waits three intervals (two, plus one per flap).
  EXPECT_TRUE(t.Observe({}, open, 39000, iv).close.empty());
  EXPECT_TRUE(t.Observe({}, open, 48000, iv).close.empty());
  EXPECT_EQ(t.Observe({}, open, 49000, iv).close, std::vector<std::string>{"host|x|loss"});
}

// A fault that returns within the reopen window after its diagnosis closed
// is the same fault: one more flap, carried on; after the window it is new.
TEST(DiagnosisTracker, ReturnWithinTheReopenWindowIsOneMoreFlap) {
  diagnosis::Tracker t({1, 2, 6, 6});
  const int64_t iv = 10000;
  diagnosis::OpenDiagnoses open;
  auto first = t.Observe({V("x")}, open, 0, iv);
  ASSERT_EQ(first.upsert.size(), 1u);
  EXPECT_EQ(first.upsert[0].flaps, 0);
  open["host|x|loss"] = {};
  EXPECT_TRUE(t.Observe({}, open, 10000, iv).close.empty());
  EXPECT_EQ(t.Observe({}, open, 20000, iv).close, std::vector<std::string>{"host|x|loss"});
  open.clear();
  auto back = t.Observe({V("x")}, open, 30000, iv);  // one interval after it closed
  ASSERT_EQ(back.upsert.size(), 1u);
  EXPECT_EQ(back.upsert[0].flaps, 1);
  bool cited = false;
  for (const auto& e : back.upsert[0].evidence) cited = cited || (e["what"] == "flapping" && e["flaps"] == 1);
  EXPECT_TRUE(cited) << back.upsert[0].evidence.dump();
  open["host|x|loss"] = {};
  // One flap: it now waits three intervals before it closes.
  EXPECT_TRUE(t.Observe({}, open, 50000, iv).close.empty());
  EXPECT_EQ(t.Observe({}, open, 60000, iv).close, std::vector<std::string>{"host|x|loss"});
  open.clear();
  // Back after the 6-interval window: a new diagnosis, no flaps.
  auto later = t.Observe({V("x")}, open, 60000 + 6 * iv + 1, iv);
  ASSERT_EQ(later.upsert.size(), 1u);
  EXPECT_EQ(later.upsert[0].flaps, 0);
  for (const auto& e : later.upsert[0].evidence) EXPECT_NE(e["what"], "flapping") << later.upsert[0].evidence.dump();
}

// The store reopens the row of a key that closed within the window (same id,
// closed_at back to NULL, flaps + 1, opened_at kept); a return after the
// window is a new row.
TEST_F(DiagnosisStore, ReopensTheSameRowWithinTheWindow) {
  const int64_t window = 6 * kIntervalMs;
  auto rows = [this] {
    auto d = c_.store().diagnoses.Diagnoses(true, 100);
    EXPECT_TRUE(d.ok()) << d.status().message();
    return d.ok() ? d.value()["diagnoses"] : json::array();
  };
  ASSERT_TRUE(c_.store().diagnoses.ApplyDiagnoses({V("x")}, {}, kT0, window).ok());
  ASSERT_TRUE(c_.store().diagnoses.ApplyDiagnoses({}, {"host|x|loss"}, kT0 + 2 * kIntervalMs, window).ok());
  json d = rows();
  ASSERT_EQ(d.size(), 1u);
  const int64_t id = d[0]["id"];
  EXPECT_EQ(d[0]["open"], false);
  EXPECT_EQ(d[0]["flaps"], 0);

  diagnosis::Verdict back = V("x");
  back.flaps = 1;
  ASSERT_TRUE(c_.store().diagnoses.ApplyDiagnoses({back}, {}, kT0 + 3 * kIntervalMs, window).ok());
  d = rows();
  ASSERT_EQ(d.size(), 1u) << d.dump();
  EXPECT_EQ(d[0]["id"], id);
  EXPECT_EQ(d[0]["open"], true);
  EXPECT_TRUE(d[0]["closed_at_ms"].is_null());
  EXPECT_EQ(d[0]["flaps"], 1);
  EXPECT_EQ(d[0]["opened_at_ms"], kT0);
  EXPECT_EQ(d[0]["last_seen_at_ms"], kT0 + 3 * kIntervalMs);
  EXPECT_EQ(d[0]["runs"], 2);
  // Refreshed while open: the count is kept, not lowered.
  ASSERT_TRUE(c_.store().diagnoses.ApplyDiagnoses({V("x")}, {}, kT0 + 4 * kIntervalMs, window).ok());
  EXPECT_EQ(rows()[0]["flaps"], 1);

  const int64_t closed = kT0 + 6 * kIntervalMs;
  ASSERT_TRUE(c_.store().diagnoses.ApplyDiagnoses({}, {"host|x|loss"}, closed, window).ok());
  ASSERT_TRUE(c_.store().diagnoses.ApplyDiagnoses({V("x")}, {}, closed + window + 1, window).ok());
  d = rows();
  ASSERT_EQ(d.size(), 2u) << d.dump();
  EXPECT_EQ(d[0]["open"], true);
  EXPECT_NE(d[0]["id"], id);
  EXPECT_EQ(d[0]["flaps"], 0);
  EXPECT_EQ(d[1]["id"], id);
  EXPECT_EQ(d[1]["closed_at_ms"], closed);
  // The API serves the count.
  json api = Get(c_.port(), "/api/v1/diagnoses?all=1")["diagnoses"];
  ASSERT_EQ(api.size(), 2u);
  EXPECT_EQ(api[1]["flaps"], 1);
}

diagnosis::Verdict LinkVerdict(const std::string& kind, const std::string& severity) {
  diagnosis::Verdict v;
  v.scope = "link", v.subject = "0xa/1<->0xb/2", v.kind = kind, v.severity = severity;
  return v;
}

bool Cites(const diagnosis::Verdict& v, const json& entry) {
  for (const json& e : v.evidence)
    if (e == entry) return true;
  return false;
}

// What the store does with a step (ApplyDiagnoses): closes, then each upsert
// goes to its element's open diagnosis (taking its key), else opens one.
void Apply(const diagnosis::TrackStep& step, diagnosis::OpenDiagnoses* open) {
  for (const std::string& k : step.close) open->erase(k);
  for (const diagnosis::Verdict& v : step.upsert) {
    for (auto it = open->begin(); it != open->end();)
      it = it->first.rfind(v.Element() + "|", 0) == 0 ? open->erase(it) : std::next(it);
    (*open)[v.Key()] = {v.severity, v.evidence};
  }
}

// A verdict of another kind on an element with an open diagnosis refreshes
// that one and keeps its kind and severity when it is no more severe.
TEST(DiagnosisTracker, OneDiagnosisPerElement) {
  diagnosis::Tracker t;
  const int64_t iv = 10000;
  diagnosis::OpenDiagnoses open = {{"link|0xa/1<->0xb/2|unreachable", {"critical"}}};
  auto s = t.Observe({LinkVerdict("link_errors", "warning")}, open, 0, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].Key(), "link|0xa/1<->0xb/2|unreachable");
  EXPECT_EQ(s.upsert[0].severity, "critical") << "a milder verdict does not lower an open diagnosis";
  EXPECT_TRUE(s.close.empty());
  EXPECT_TRUE(s.escalated.empty());
  // Another kind as severe: the open kind stays.
  s = t.Observe({LinkVerdict("loss", "critical")}, open, 5000, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].Key(), "link|0xa/1<->0xb/2|unreachable");
  EXPECT_TRUE(s.escalated.empty());
}

// A host whose paths lose probes, then answer nothing at all (its agent was
// killed during an interval: the first pass sees part of that interval's
// probes answered): both critical, and the worse kind takes the open row;
// back to loss, it stays unreachable until it closes.
TEST(DiagnosisTracker, LossThenUnreachableAtOneSeverityEscalates) {
  diagnosis::Tracker t({1, 2, 6, 6});
  const int64_t iv = 4000;
  diagnosis::OpenDiagnoses open;
  diagnosis::Verdict loss = V("n1");
  loss.severity = "critical";
  diagnosis::Verdict gone = loss;
  gone.kind = "unreachable";
  auto s = t.Observe({loss}, open, 0, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  Apply(s, &open);
  s = t.Observe({gone}, open, 1000, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_TRUE(s.close.empty()) << "an escalation closes nothing";
  EXPECT_EQ(s.upsert[0].Key(), "host|n1|unreachable");
  EXPECT_EQ(s.escalated, (std::map<std::string, std::string>{{"host|n1|loss", "host|n1|unreachable"}}));
  const json escalated = {{"what", "escalated"}, {"from_kind", "loss"}, {"from_severity", "critical"},
                          {"at_ms", 1000}};
  EXPECT_TRUE(Cites(s.upsert[0], escalated)) << s.upsert[0].evidence.dump();
  Apply(s, &open);
  s = t.Observe({loss}, open, 2000, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].Key(), "host|n1|unreachable") << "never milder while open";
  EXPECT_TRUE(s.escalated.empty());
}

// A warning then a critical verdict on one element: one diagnosis whose key
// follows the kind (the store updates the same row), never a close; the
// escalation is cited from then on, across flaps and a reopen.
TEST(DiagnosisTracker, WarningThenCriticalEscalatesInPlace) {
  diagnosis::Tracker t({1, 2, 6, 6});
  const int64_t iv = 10000;
  const json escalated = {{"what", "escalated"}, {"from_kind", "link_errors"}, {"from_severity", "warning"},
                          {"at_ms", 10000}};
  diagnosis::OpenDiagnoses open;
  auto s = t.Observe({LinkVerdict("link_errors", "warning")}, open, 0, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  Apply(s, &open);
  s = t.Observe({LinkVerdict("unreachable", "critical")}, open, iv, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_TRUE(s.close.empty()) << "an escalation closes nothing";
  EXPECT_EQ(s.upsert[0].Key(), "link|0xa/1<->0xb/2|unreachable");
  EXPECT_EQ(s.upsert[0].severity, "critical");
  EXPECT_EQ(s.escalated, (std::map<std::string, std::string>{
                             {"link|0xa/1<->0xb/2|link_errors", "link|0xa/1<->0xb/2|unreachable"}}));
  EXPECT_TRUE(Cites(s.upsert[0], escalated)) << s.upsert[0].evidence.dump();
  Apply(s, &open);
  ASSERT_EQ(open.size(), 1u);

  // It flaps: gone for two passes, back as a warning (counters only), gone,
  // back critical. One diagnosis all along, critical, its flaps counted.
  EXPECT_TRUE(t.Observe({}, open, 15000, iv).close.empty());
  EXPECT_TRUE(t.Observe({}, open, 25000, iv).close.empty());
  s = t.Observe({LinkVerdict("link_errors", "warning")}, open, 28000, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].Key(), "link|0xa/1<->0xb/2|unreachable");
  EXPECT_EQ(s.upsert[0].severity, "critical");
  EXPECT_EQ(s.upsert[0].flaps, 1);
  EXPECT_TRUE(Cites(s.upsert[0], escalated)) << "the escalation stays cited: " << s.upsert[0].evidence.dump();
  EXPECT_TRUE(s.close.empty());
  Apply(s, &open);
  EXPECT_TRUE(t.Observe({}, open, 35000, iv).close.empty());
  s = t.Observe({LinkVerdict("unreachable", "critical")}, open, 45000, iv);
  EXPECT_EQ(s.upsert.at(0).flaps, 2);
  EXPECT_TRUE(s.escalated.empty()) << "already critical";
  Apply(s, &open);

  // Closed after 2 + 2 intervals without it; back as a warning within the
  // reopen window: the same element's diagnosis, one more flap, still
  // critical and still citing its escalation.
  EXPECT_TRUE(t.Observe({}, open, 80000, iv).close.empty());
  s = t.Observe({}, open, 85000, iv);
  EXPECT_EQ(s.close, std::vector<std::string>{"link|0xa/1<->0xb/2|unreachable"});
  Apply(s, &open);
  s = t.Observe({LinkVerdict("link_errors", "warning")}, open, 95000, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].Key(), "link|0xa/1<->0xb/2|unreachable");
  EXPECT_EQ(s.upsert[0].severity, "critical");
  EXPECT_EQ(s.upsert[0].flaps, 3);
  EXPECT_TRUE(Cites(s.upsert[0], escalated)) << s.upsert[0].evidence.dump();
}

// A return within the reopen window as a more severe kind escalates the
// reopened diagnosis; a restart takes the escalation back from the store.
TEST(DiagnosisTracker, ReopenEscalatesAndRestartKeepsTheEscalation) {
  const int64_t iv = 10000;
  diagnosis::Tracker t({1, 2, 6, 6});
  diagnosis::OpenDiagnoses open;
  Apply(t.Observe({LinkVerdict("link_errors", "warning")}, open, 0, iv), &open);
  auto s = t.Observe({}, open, 20000, iv);
  ASSERT_EQ(s.close.size(), 1u);
  Apply(s, &open);
  s = t.Observe({LinkVerdict("unreachable", "critical")}, open, 30000, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].flaps, 1);
  const json escalated = {{"what", "escalated"}, {"from_kind", "link_errors"}, {"from_severity", "warning"},
                          {"at_ms", 30000}};
  EXPECT_TRUE(Cites(s.upsert[0], escalated)) << s.upsert[0].evidence.dump();
  Apply(s, &open);

  diagnosis::Tracker restarted({1, 2, 6, 6});
  s = restarted.Observe({LinkVerdict("link_errors", "warning")}, open, 40000, iv);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].Key(), "link|0xa/1<->0xb/2|unreachable");
  EXPECT_TRUE(Cites(s.upsert[0], escalated)) << s.upsert[0].evidence.dump();
  EXPECT_EQ(std::count_if(s.upsert[0].evidence.begin(), s.upsert[0].evidence.end(),
                          [](const json& e) { return e["what"] == "escalated"; }),
            1);
}

// Two diagnoses open on one element (rows written before one per element
// held whatever the kind): the more severe stays, the other closes.
TEST(DiagnosisTracker, TwoOpenOnOneElementKeepTheMoreSevere) {
  diagnosis::Tracker t;
  diagnosis::OpenDiagnoses open = {{"link|0xa/1<->0xb/2|link_errors", {"warning"}},
                                   {"link|0xa/1<->0xb/2|unreachable", {"critical"}}};
  auto s = t.Observe({LinkVerdict("link_errors", "warning")}, open, 0, 10000);
  EXPECT_EQ(s.close, std::vector<std::string>{"link|0xa/1<->0xb/2|link_errors"});
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].Key(), "link|0xa/1<->0xb/2|unreachable");
}

// Runs sql on the writer connection, under its lock.
void WriterExec(Storage& store, const std::string& sql) {
  std::lock_guard<std::mutex> lock(store.db.mu());
  Status st = store.db.db().Exec(sql);
  ASSERT_TRUE(st.ok()) << st.message();
}

json WriterRows(Storage& store, const std::string& sql) {
  std::lock_guard<std::mutex> lock(store.db.mu());
  auto q = store.db.db().Prepare(sql);
  EXPECT_TRUE(q.ok()) << q.status().message();
  if (!q.ok()) return json::array();
  auto rows = Rows(q.value());
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  return rows.ok() ? rows.value() : json::array();
}

// An escalation is an UPDATE of the element's open row: same id, opened_at,
// since_at and flaps, the new kind, severity and key; no row deleted or
// inserted. A return within the window after it closed reopens that row
// whatever the kind.
TEST_F(DiagnosisStore, EscalationUpdatesTheSameRow) {
  Storage& store = c_.store();
  const int64_t window = 6 * kIntervalMs;
  diagnosis::Verdict warn = LinkVerdict("link_errors", "warning");
  warn.first_bad_ms = kT0 - 5000;
  warn.flaps = 1;
  ASSERT_TRUE(store.diagnoses.ApplyDiagnoses({warn}, {}, kT0, window).ok());
  json before = store.diagnoses.Diagnoses(true, 100).value()["diagnoses"];
  ASSERT_EQ(before.size(), 1u);

  // Every row written from here on, by the writer connection, is counted.
  WriterExec(store,
             "CREATE TEMP TABLE diagnosis_writes(op TEXT NOT NULL);"
             "CREATE TEMP TRIGGER diagnosis_writes_insert AFTER INSERT ON main.diagnoses "
             "BEGIN INSERT INTO diagnosis_writes VALUES ('insert'); END;"
             "CREATE TEMP TRIGGER diagnosis_writes_delete AFTER DELETE ON main.diagnoses "
             "BEGIN INSERT INTO diagnosis_writes VALUES ('delete'); END;"
             "CREATE TEMP TRIGGER diagnosis_writes_update AFTER UPDATE ON main.diagnoses "
             "BEGIN INSERT INTO diagnosis_writes VALUES ('update'); END;");
  diagnosis::Verdict crit = LinkVerdict("unreachable", "critical");
  crit.first_bad_ms = kT0 + 5000;
  crit.evidence = {{{"what", "escalated"}, {"from_kind", "link_errors"}, {"from_severity", "warning"},
                    {"at_ms", kT0 + kIntervalMs}}};
  ASSERT_TRUE(store.diagnoses.ApplyDiagnoses({crit}, {}, kT0 + kIntervalMs, window).ok());
  EXPECT_EQ(WriterRows(store, "SELECT op FROM diagnosis_writes"), json::parse(R"([{"op":"update"}])"));

  json d = store.diagnoses.Diagnoses(true, 100).value()["diagnoses"];
  ASSERT_EQ(d.size(), 1u) << d.dump();
  EXPECT_EQ(d[0]["id"], before[0]["id"]);
  EXPECT_EQ(d[0]["open"], true);
  EXPECT_EQ(d[0]["kind"], "unreachable");
  EXPECT_EQ(d[0]["severity"], "critical");
  EXPECT_EQ(d[0]["opened_at_ms"], kT0);
  EXPECT_EQ(d[0]["since_ms"], kT0 - 5000);
  EXPECT_EQ(d[0]["flaps"], 1);
  EXPECT_EQ(d[0]["runs"], 2);
  EXPECT_EQ(d[0]["evidence"], crit.evidence);
  auto open = store.diagnoses.OpenDiagnosisKeys();
  ASSERT_TRUE(open.ok()) << open.status().message();
  ASSERT_EQ(open.value().size(), 1u);
  EXPECT_EQ(open.value().begin()->first, "link|0xa/1<->0xb/2|unreachable");
  EXPECT_EQ(open.value().begin()->second.severity, "critical");
  EXPECT_EQ(open.value().begin()->second.evidence, crit.evidence);
  // The API and rdmactl show the current kind and the escalation in words.
  json api = Get(c_.port(), "/api/v1/diagnoses")["diagnoses"];
  ASSERT_EQ(api.size(), 1u);
  EXPECT_EQ(api[0]["kind"], "unreachable");
  CliRun text = Rdmactl("diagnose --collector http://127.0.0.1:" + std::to_string(c_.port()));
  EXPECT_EQ(text.code, 2) << text.out;
  EXPECT_NE(text.out.find("critical link 0xa/1<->0xb/2: unreachable"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("evidence: escalated from warning link_errors at "), std::string::npos) << text.out;

  // Closed, then back within the window as another kind: the same row.
  ASSERT_TRUE(store.diagnoses.ApplyDiagnoses({}, {crit.Key()}, kT0 + 3 * kIntervalMs, window).ok());
  diagnosis::Verdict back = LinkVerdict("loss", "critical");
  ASSERT_TRUE(store.diagnoses.ApplyDiagnoses({back}, {}, kT0 + 4 * kIntervalMs, window).ok());
  d = store.diagnoses.Diagnoses(true, 100).value()["diagnoses"];
  ASSERT_EQ(d.size(), 1u) << d.dump();
  EXPECT_EQ(d[0]["id"], before[0]["id"]);
  EXPECT_EQ(d[0]["open"], true);
  EXPECT_EQ(d[0]["kind"], "loss");
  EXPECT_EQ(d[0]["flaps"], 2);
  EXPECT_EQ(WriterRows(store, "SELECT count(*) AS n FROM diagnosis_writes WHERE op <> 'update'")[0]["n"], 0);
}

// The lookups of ApplyDiagnoses read a range of the key indexes, never the
// whole history of diagnoses.
TEST_F(DiagnosisStore, ElementLookupsUseTheKeyIndexes) {
  for (const auto& [sql, index] : {std::pair<const char*, const char*>{kDiagnosisRefreshSql, "diagnoses_one_open"},
                                   {kDiagnosisReopenSql, "diagnoses_key_closed"}}) {
    std::string text;
    for (const json& step : WriterRows(c_.store(), std::string("EXPLAIN QUERY PLAN ") + sql))
      text += step["detail"].get<std::string>() + "\n";
    EXPECT_NE(text.find(std::string("USING INDEX ") + index + " (key>? AND key<?)"), std::string::npos) << text;
    EXPECT_EQ(text.find("SCAN diagnoses"), std::string::npos) << text;
  }
}

// An unexplained spread of bad paths opens only when it lasts a report
// interval; an element verdict opens on its first run as before.
TEST(DiagnosisTracker, UnknownMustHoldForTheInterval) {
  diagnosis::Tracker t({1, 2});
  diagnosis::OpenDiagnoses open;
  diagnosis::Verdict unknown;
  unknown.scope = "unknown", unknown.subject = "fleet", unknown.kind = "latency";
  const int64_t hold = 4000;
  EXPECT_EQ(t.Observe({V("x")}, open, 1000, hold).upsert.size(), 1u) << "a host verdict waits for nothing";
  EXPECT_TRUE(t.Observe({unknown}, open, 1000, hold).upsert.empty());
  EXPECT_TRUE(t.Observe({unknown}, open, 4999, hold).upsert.empty()) << "3999 ms of 4000";
  EXPECT_TRUE(t.Observe({}, open, 5500, hold).upsert.empty());  // a run without it restarts the streak
  EXPECT_TRUE(t.Observe({unknown}, open, 6000, hold).upsert.empty());
  EXPECT_TRUE(t.Observe({unknown}, open, 9000, hold).upsert.empty());
  auto s = t.Observe({unknown}, open, 10000, hold);
  ASSERT_EQ(s.upsert.size(), 1u);
  EXPECT_EQ(s.upsert[0].Key(), "unknown|fleet|latency");
}

// The counters behind a verdict come from the store: the newest sample in the
// window against the report before it, never a rise from long ago.
TEST_F(DiagnosisStore, CitesTheCountersThatMovedOnTheNode) {
  auto cited = [](const json& evidence) {
    std::vector<int64_t> deltas;
    for (const json& e : evidence)
      if (e["what"] == "counter" && e["node"] == "n1" && e["counter"] == "symbol_error") deltas.push_back(e["delta"]);
    return deltas;
  };
  Round(c_.store(), 0, "", false, 0);
  Round(c_.store(), 1, "n1", false, 0);  // n1's counter: 0 -> 0
  DiagnosisPass first = Pass(1);
  ASSERT_EQ(first.opened, std::vector<std::string>{"host|n1|loss"});
  json d = Get(c_.port(), "/api/v1/diagnoses")["diagnoses"];
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(cited(d[0]["evidence"]).empty()) << d[0]["evidence"].dump();

  Round(c_.store(), 2, "n1", false, 7);  // 0 -> 7 within the window
  Pass(2);
  d = Get(c_.port(), "/api/v1/diagnoses")["diagnoses"];
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(cited(d[0]["evidence"]), std::vector<int64_t>{7}) << d[0]["evidence"].dump();

  Round(c_.store(), 3, "n1", false, 7);  // unchanged since: the old rise is not cited again
  Pass(3);
  d = Get(c_.port(), "/api/v1/diagnoses")["diagnoses"];
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(cited(d[0]["evidence"]).empty()) << d[0]["evidence"].dump();
}

}  // namespace
}  // namespace rdmascope::collector
