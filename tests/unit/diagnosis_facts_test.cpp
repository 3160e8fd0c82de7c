// The facts the diagnosis reads from the store: which counters moved. The
// writer keeps each counter's delta by the counter rules (wrap, reset, boot
// id) with its newest reading; DiagnosisFacts' "moved" reads the rows that
// rose from an index, never the counter history. Likewise for fabric ports:
// the writer keeps the error counters of each port's newest sample that rose
// over the one before (fabric_port_rises), and the diagnosis reads those.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "collector/diagnosis/diagnosis_input.h"
#include "collector/store/diagnosis_records.h"
#include "collector/store/storage.h"
#include "collector/store/store_rows.h"
#include "tests/collector/old_database.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeReport;

constexpr int64_t kT0 = 1700000000000;
constexpr int64_t kIntervalMs = 10000;
constexpr char kSwitch[] = "0x0000000000000201";  // the switch n1's port is cabled to (its port 3)

int64_t At(int k) { return kT0 + k * kIntervalMs; }

class DiagnosisFacts : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing::OpenCurrentStore(dir_.File("store.db"));
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
  }
  // n1's report of round k with these counters (the rest as MakeReport has
  // them) and this boot id.
  void Report(int k, const json& counters, const std::string& boot_id = "boot-1") {
    json r = MakeReport("n1-r" + std::to_string(k), "n1", At(k));
    r["boot_id"] = boot_id;
    json& c = r["inventory"]["devices"][0]["ports"][0]["counters"];
    for (const auto& [name, value] : counters.items()) c[name] = value;
    auto res = store_->writer.Ingest(r, At(k));
    ASSERT_TRUE(res.ok()) << res.status().message();
  }
  // "moved" as name -> delta, for a pass whose window starts at since.
  std::map<std::string, int64_t> Moved(int64_t since, int64_t counters_from) {
    auto f = store_->diagnoses.DiagnosisFacts(since, counters_from);
    EXPECT_TRUE(f.ok()) << f.status().message();
    std::map<std::string, int64_t> out;
    if (!f.ok()) return out;
    for (const DiagnosisFactRows::Moved& r : f.value().moved) {
      EXPECT_EQ(r.node, "n1");
      EXPECT_EQ(r.device, "mlx5_0");
      EXPECT_EQ(r.port, 1);
      out[r.kind + "/" + r.name] = r.delta;
    }
    return out;
  }
  // The pass right after round k: its window is the last report interval.
  std::map<std::string, int64_t> MovedAfter(int k) { return Moved(At(k) - kIntervalMs + 1, At(k) - 3 * kIntervalMs); }

  // n1's report of round k whose mlx5_0 port 1 is cabled to port 3 of
  // kSwitch ("leaf-1"), with these counters read on that switch port.
  void ReportWithNeighbour(int k, const json& switch_counters) {
    json r = MakeReport("n1-r" + std::to_string(k), "n1", At(k));
    json port = {{"port", 3}, {"counters", switch_counters}};
    r["neighbours"] = json::array({json{{"device", "mlx5_0"}, {"local_port", 1}, {"guid", kSwitch},
                                        {"type", "Switch"}, {"description", "leaf-1"}, {"port", port}}});
    auto res = store_->writer.Ingest(r, At(k));
    ASSERT_TRUE(res.ok()) << res.status().message();
  }
  DiagnosisFactRows Facts(int64_t since) {
    auto f = store_->diagnoses.DiagnosisFacts(since, since - 2 * kIntervalMs);
    EXPECT_TRUE(f.ok()) << f.status().message();
    return f.ok() ? std::move(f).value() : DiagnosisFactRows{};
  }
  DiagnosisFactRows FactsAfter(int k) { return Facts(At(k) - kIntervalMs + 1); }
  int64_t RisesKept() { return store_->db.CountRows("fabric_port_rises").value(); }

  testsupport::ScratchDir dir_{"diagnosis_facts_test"};
  std::unique_ptr<Storage> store_;
};

TEST_F(DiagnosisFacts, TheNewestRiseInTheWindowWithItsDelta) {
  Report(0, {{"symbol_error", 2}, {"port_xmit_packets", 10}});
  EXPECT_TRUE(MovedAfter(0).empty()) << "a first reading has no delta";
  Report(1, {{"symbol_error", 9}, {"port_xmit_packets", 10}});
  EXPECT_EQ(MovedAfter(1), (std::map<std::string, int64_t>{{"counters/symbol_error", 7}}));
  Report(2, {{"symbol_error", 9}, {"port_xmit_packets", 25}, {"link_error_recovery", 1}});
  EXPECT_TRUE(MovedAfter(2).empty()) << "a first reading has no delta; a traffic counter is no error";
  Report(3, {{"symbol_error", 9}, {"port_xmit_packets", 40}, {"link_error_recovery", 16}});
  EXPECT_EQ(MovedAfter(3), (std::map<std::string, int64_t>{{"counters/link_error_recovery", 15}}))
      << "a counter that stopped rising is not cited again, nor traffic that rose";
}

// The deltas are the counter rules': a saturating error counter that went
// back was cleared, and rose by what it holds now; a new boot id restarts
// every counter from zero. Neither is the huge difference of the raw values.
// Only error counters are read: traffic that wrapped or restarted is no
// evidence.
TEST_F(DiagnosisFacts, ResetAndRebootAreTheRulesDeltaNotAHugeOne) {
  Report(0, {{"symbol_error", 100}, {"port_xmit_packets", 4294967290LL}, {"link_downed", 0}});
  Report(1, {{"symbol_error", 3}, {"port_xmit_packets", 5}, {"link_downed", 0}});
  EXPECT_EQ(MovedAfter(1), (std::map<std::string, int64_t>{{"counters/symbol_error", 3}}));
  Report(2, {{"symbol_error", 3}, {"port_xmit_packets", 5}, {"link_downed", 0}});
  Report(3, {{"symbol_error", 4}, {"port_xmit_packets", 5}, {"link_downed", 2}}, "boot-2");
  EXPECT_EQ(MovedAfter(3), (std::map<std::string, int64_t>{{"counters/link_downed", 2}, {"counters/symbol_error", 4}}))
      << "after a reboot every counter's value is new";
}

// A counter whose newest reading is older than the window did not move in
// it, however much it rose then; nor did one whose reading before is older
// than counters_from (the reports between were lost).
TEST_F(DiagnosisFacts, OnlyRisesInsideTheWindow) {
  Report(0, {{"symbol_error", 0}});
  Report(1, {{"symbol_error", 50}});
  EXPECT_EQ(MovedAfter(1).count("counters/symbol_error"), 1u);
  EXPECT_TRUE(MovedAfter(4).empty()) << "the rise at round 1 is older than round 4's window";
  EXPECT_TRUE(Moved(At(1) + 1, At(0)).empty()) << "the newest reading is before since";
  EXPECT_TRUE(Moved(At(1), At(0) + 1).empty()) << "the reading before is older than counters_from";
  EXPECT_EQ(Moved(At(1), At(0)).at("counters/symbol_error"), 50);
}

// The read is the index of the rows that rose, not a walk of the table.
TEST_F(DiagnosisFacts, MovedIsReadFromItsIndex) {
  auto q = store_->db.db().Prepare(std::string("EXPLAIN QUERY PLAN ") + kDiagnosisMovedSql);
  ASSERT_TRUE(q.ok()) << q.status().message();
  q.value().Bind(1, At(1)).Bind(2, At(0));
  auto plan = Rows(q.value());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::string text;
  for (const json& step : plan.value()) text += step["detail"].get<std::string>() + "\n";
  EXPECT_NE(text.find("USING COVERING INDEX counters_latest_error_rose"), std::string::npos) << text;
  EXPECT_EQ(text.find("SCAN counters_latest"), std::string::npos) << text;
}

using Rises = std::vector<std::pair<std::string, int64_t>>;  // by name

Rises Of(const std::vector<DiagnosisFactRows::Rise>& rises) {
  Rises out;
  for (const auto& r : rises) out.emplace_back(r.name, r.delta);
  return out;
}
Rises Of(const std::vector<diagnosis::CounterDelta>& deltas) {
  Rises out;
  for (const auto& d : deltas) out.emplace_back(d.name, d.delta);
  return out;
}

// A switch port's rise is kept once, when its sample is written: the
// neighbour row carries it, and so do the fabric ports that rose. An
// unchanged reading adds no sample (the rise stays the newest sample's, and
// the window leaves it behind); a new sample that rose by nothing clears it.
TEST_F(DiagnosisFacts, ASwitchPortsRiseIsKeptUntilASampleThatDidNotRise) {
  ReportWithNeighbour(0, {{"symbol_error", 4}, {"link_downed", 1}});
  EXPECT_EQ(RisesKept(), 0) << "a first sample has nothing to rise over";
  DiagnosisFactRows f = FactsAfter(0);
  ASSERT_EQ(f.neighbours.size(), 1u);
  EXPECT_EQ(f.neighbours[0].node, "n1");
  EXPECT_EQ(f.neighbours[0].switch_guid, kSwitch);
  EXPECT_EQ(f.neighbours[0].switch_port, 3);
  EXPECT_EQ(f.neighbours[0].switch_description, "leaf-1");
  EXPECT_TRUE(f.neighbours[0].switch_rises.empty());
  EXPECT_TRUE(f.fabric_rises.empty());

  ReportWithNeighbour(1, {{"symbol_error", 9}, {"link_downed", 1}, {"port_xmit_data", 100}});
  EXPECT_EQ(RisesKept(), 1);
  f = FactsAfter(1);
  ASSERT_EQ(f.neighbours.size(), 1u);
  EXPECT_EQ(Of(f.neighbours[0].switch_rises), (Rises{{"symbol_error", 5}}));
  ASSERT_EQ(f.fabric_rises.size(), 1u);
  EXPECT_EQ(f.fabric_rises[0].guid, kSwitch);
  EXPECT_EQ(f.fabric_rises[0].port, 3);
  EXPECT_EQ(f.fabric_rises[0].at, At(1));
  EXPECT_EQ(Of(f.fabric_rises[0].rises), (Rises{{"symbol_error", 5}}));

  ReportWithNeighbour(2, {{"symbol_error", 9}, {"link_downed", 1}});
  EXPECT_EQ(RisesKept(), 1) << "unchanged: no new sample, the newest one still rose";
  f = FactsAfter(2);
  EXPECT_TRUE(f.neighbours.at(0).switch_rises.empty()) << "the rise at round 1 is before round 2's window";
  EXPECT_TRUE(f.fabric_rises.empty());

  ReportWithNeighbour(3, {{"symbol_error", 0}, {"link_downed", 1}});
  EXPECT_EQ(RisesKept(), 0) << "a cleared counter: a new sample that rose by nothing";
  EXPECT_TRUE(Facts(At(1)).fabric_rises.empty()) << "the newest sample did not rise, whatever the window";

  ReportWithNeighbour(4, {{"symbol_error", 2}, {"link_downed", 3}});
  f = FactsAfter(4);
  EXPECT_EQ(Of(f.neighbours.at(0).switch_rises), (Rises{{"link_downed", 2}, {"symbol_error", 2}}));
  ASSERT_EQ(f.fabric_rises.size(), 1u);
  EXPECT_EQ(Of(f.fabric_rises[0].rises), (Rises{{"link_downed", 2}, {"symbol_error", 2}}));
}

// The newest sample's time stays the window's test: since after it, the
// neighbour row is still there (its switch named), without the rise.
TEST_F(DiagnosisFacts, SwitchPortRisesOnlyInsideTheWindow) {
  ReportWithNeighbour(0, {{"symbol_error", 0}});
  ReportWithNeighbour(1, {{"symbol_error", 50}});
  DiagnosisFactRows f = Facts(At(1) + 1);
  ASSERT_EQ(f.neighbours.size(), 1u);
  EXPECT_EQ(f.neighbours[0].switch_guid, kSwitch);
  EXPECT_TRUE(f.neighbours[0].switch_rises.empty());
  EXPECT_TRUE(f.fabric_rises.empty());
  f = Facts(At(1));
  EXPECT_EQ(Of(f.neighbours.at(0).switch_rises), (Rises{{"symbol_error", 50}}));
  EXPECT_EQ(f.fabric_rises.size(), 1u);
}

// What the analysis gets: the host port's facts name the switch port at the
// other end and its rise; the fabric ports' rises carry the same port.
TEST_F(DiagnosisFacts, RisesReachThePortsFactsAndTheFabricRises) {
  ReportWithNeighbour(0, {{"symbol_error", 4}});
  ReportWithNeighbour(1, {{"symbol_error", 9}});
  DiagnosisSourceOptions o;
  o.report_interval_ms = kIntervalMs;
  FabricCounterRises rises;
  auto in = LoadDiagnosisInput(*store_, At(1) + 1000, o, &rises);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in.value().ports.size(), 1u);
  const diagnosis::PortFacts& p = in.value().ports[0];
  EXPECT_EQ(p.node, "n1");
  EXPECT_EQ(p.device, "mlx5_0");
  EXPECT_EQ(p.port, 1);
  EXPECT_TRUE(p.active);
  EXPECT_EQ(p.switch_guid, kSwitch);
  EXPECT_EQ(p.switch_port, 3);
  EXPECT_EQ(p.switch_description, "leaf-1");
  EXPECT_EQ(Of(p.switch_moved), (Rises{{"symbol_error", 5}}));
  ASSERT_EQ(rises.size(), 1u);
  EXPECT_EQ(rises.begin()->first, (fabric::PortRef{0x201, 3}));
  EXPECT_EQ(Of(rises.begin()->second), (Rises{{"symbol_error", 5}}));

  for (int k = 2; k <= 4; ++k) ReportWithNeighbour(k, {{"symbol_error", 9}});
  in = LoadDiagnosisInput(*store_, At(4) + 1000, o, &rises);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in.value().ports.size(), 1u);
  EXPECT_EQ(in.value().ports[0].switch_guid, kSwitch);
  EXPECT_TRUE(in.value().ports[0].switch_moved.empty()) << "the rise is older than the window";
  EXPECT_TRUE(rises.empty());
}

// Retention takes a port's rise with its newest sample.
TEST_F(DiagnosisFacts, RetentionForgetsOldRises) {
  ReportWithNeighbour(0, {{"symbol_error", 4}});
  ReportWithNeighbour(1, {{"symbol_error", 9}});
  ASSERT_EQ(RisesKept(), 1);
  RetentionPolicy p;
  while (store_->retention.RetentionStep(At(1) + p.raw_max_age_ms - 1, p).value() > 0) {
  }
  EXPECT_EQ(RisesKept(), 1) << "not yet past the raw age";
  while (store_->retention.RetentionStep(At(1) + p.raw_max_age_ms + 1, p).value() > 0) {
  }
  EXPECT_EQ(RisesKept(), 0);
  EXPECT_EQ(store_->db.CountRows("fabric_port_samples").value(), 0);
}

std::string PlanOf(Db& db, const char* sql, int64_t since) {
  auto q = db.Prepare(std::string("EXPLAIN QUERY PLAN ") + sql);
  EXPECT_TRUE(q.ok()) << q.status().message();
  if (!q.ok()) return "";
  q.value().Bind(1, since);
  auto plan = Rows(q.value());
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  std::string text;
  if (plan.ok())
    for (const json& step : plan.value()) text += step["detail"].get<std::string>() + "\n";
  return text;
}

// The rises are looked up by the switch port's key for each neighbour, and
// the fabric ports' rises come from the index on at: neither walks the table.
TEST_F(DiagnosisFacts, RisesAreReadByKeyAndFromTheIndexOnAt) {
  std::string text = PlanOf(store_->db.db(), kDiagnosisNeighboursSql, At(1));
  EXPECT_NE(text.find("SEARCH r USING INDEX sqlite_autoindex_fabric_port_rises_1 (guid=? AND port=?)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("SCAN r"), std::string::npos) << text;
  text = PlanOf(store_->db.db(), kDiagnosisFabricRisesSql, At(1));
  EXPECT_NE(text.find("USING INDEX fabric_port_rises_at (at>?)"), std::string::npos) << text;
  EXPECT_EQ(text.find("SCAN fabric_port_rises"), std::string::npos) << text;
}

// A store of schema 10 migrates: its counters have no delta until they are
// next reported, and then have the rules' one.
TEST(DiagnosisFactsMigration, OldCountersHaveNoDeltaUntilReportedAgain) {
  testsupport::ScratchDir dir("diagnosis_facts_test");
  const std::string path = dir.File("old.db");
  auto s = testing::UpgradeFrom(path, 10,
                                "INSERT INTO counters_latest(node, device, port, kind, name, value, sampled_at) "
                                "VALUES ('n1', 'mlx5_0', 1, 'counters', 'symbol_error', 5, " +
                                    std::to_string(At(0)) + ");");
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::unique_ptr<Storage> store = std::move(s).value();
  auto f = store->diagnoses.DiagnosisFacts(At(0), At(0) - kIntervalMs);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f.value().moved.empty()) << f.value().moved.size();
  json r = MakeReport("n1-r1", "n1", At(1), 4, 9);
  ASSERT_TRUE(store->writer.Ingest(r, At(1)).ok());
  f = store->diagnoses.DiagnosisFacts(At(1), At(0));
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f.value().moved.size(), 1u);
  EXPECT_EQ(f.value().moved[0].name, "symbol_error");
  EXPECT_EQ(f.value().moved[0].delta, 4);
}

// A store of schema 13 migrates: the rises of each fabric port's two newest
// samples are filled in, by the writer's rule (error counters, integers on
// both sides, risen), so a pass right after the upgrade sees them.
TEST(DiagnosisFactsMigration, FabricPortRisesAreFilledFromTheTwoNewestSamples) {
  testsupport::ScratchDir dir("diagnosis_facts_test");
  const std::string path = dir.File("old.db");
  auto sample = [](const char* guid, int port, int k, const char* counters) {
    return "INSERT INTO fabric_port_samples(guid, port, at, counters) VALUES ('" + std::string(guid) + "', " +
           std::to_string(port) + ", " + std::to_string(At(k)) + ", '" + counters + "');";
  };
  const std::string rows =
      sample(kSwitch, 3, 0, R"({"link_downed":1,"symbol_error":4})") +
      sample(kSwitch, 3, 1, R"({"link_downed":1,"port_xmit_wait":7,"symbol_error":9})") +  // rose: symbol_error
      sample(kSwitch, 4, 1, R"({"symbol_error":9})") +                                    // one sample
      sample("0x0000000000000202", 1, 0, R"({"symbol_error":9})") +
      sample("0x0000000000000202", 1, 1, R"({"symbol_error":3})") +  // went back
      sample("0x0000000000000202", 2, 0, R"({"symbol_error":1})") +
      sample("0x0000000000000202", 2, 1, R"({"symbol_error":2})") +
      sample("0x0000000000000202", 2, 2, R"({"symbol_error":2})") +  // the newest did not rise
      sample("0x0000000000000203", 1, 0, R"({"VL15_dropped":1,"link_downed":0,"port_xmit_wait":1})") +
      sample("0x0000000000000203", 1, 1, R"({"VL15_dropped":3,"link_downed":"x","port_xmit_wait":5})");
  auto s = testing::UpgradeFrom(path, 13, rows);
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::unique_ptr<Storage> store = std::move(s).value();
  auto f = store->diagnoses.DiagnosisFacts(At(0), At(0) - kIntervalMs);
  ASSERT_TRUE(f.ok()) << f.status().message();
  const auto& r = f.value().fabric_rises;
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].guid, kSwitch);
  EXPECT_EQ(r[0].port, 3);
  EXPECT_EQ(r[0].at, At(1));
  EXPECT_EQ(Of(r[0].rises), (Rises{{"symbol_error", 5}}));
  EXPECT_EQ(r[1].guid, "0x0000000000000203");
  EXPECT_EQ(Of(r[1].rises), (Rises{{"VL15_dropped", 2}, {"port_xmit_wait", 4}}));
}

}  // namespace
}  // namespace rdmascope::collector
