// The facts the diagnosis reads from the store: which counters moved. The
// writer keeps each counter's delta by the counter rules (wrap, reset, boot
// id) with its newest reading; DiagnosisFacts' "moved" reads the rows that
// rose from an index, never the counter history.
#include <gtest/gtest.h>

#include <map>
#include <string>

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
    for (const json& r : f.value()["moved"]) {
      EXPECT_EQ(r["node"], "n1");
      EXPECT_EQ(r["device"], "mlx5_0");
      EXPECT_EQ(r["port"], 1);
      out[r["kind"].get<std::string>() + "/" + r["name"].get<std::string>()] = r["delta"].get<int64_t>();
    }
    return out;
  }
  // The pass right after round k: its window is the last report interval.
  std::map<std::string, int64_t> MovedAfter(int k) { return Moved(At(k) - kIntervalMs + 1, At(k) - 3 * kIntervalMs); }

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
  EXPECT_TRUE(f.value()["moved"].empty()) << f.value()["moved"].dump();
  json r = MakeReport("n1-r1", "n1", At(1), 4, 9);
  ASSERT_TRUE(store->writer.Ingest(r, At(1)).ok());
  f = store->diagnoses.DiagnosisFacts(At(1), At(0));
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f.value()["moved"].size(), 1u) << f.value()["moved"].dump();
  EXPECT_EQ(f.value()["moved"][0]["name"], "symbol_error");
  EXPECT_EQ(f.value()["moved"][0]["delta"], 4);
}

}  // namespace
}  // namespace rdmascope::collector
