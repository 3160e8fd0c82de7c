// Probe rollups: built per closed slice from the raw summaries, late summaries
// added as they are stored, and raw rows kept until they are rolled up. Built
// once per backend (tests/collector/store_backend.h): the rollups' cases run
// on SQLite and on a real PostgreSQL; the migrations of old SQLite files on
// SQLite only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <map>
#include <string>
#include <tuple>

#include <prometheus/text_serializer.h>

#include "collector/metrics/collector_metrics.h"
#include "collector/service/retention_worker.h"
#include "collector/store/storage.h"
#include "collector/store/store_db.h"
#include "collector/store/store_migrate.h"
#include "collector/store/store_rows.h"
#include "tests/collector/old_database.h"
#include "tests/collector/store_backend.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;

constexpr int64_t kT0 = 1700000000000;  // 20 s past a minute, 800 s past an hour
constexpr int64_t kMinute = 60000, kHour = 3600000, kDay = 24 * kHour;
// Retention is judged past the end of kT0's day: PostgreSQL drops the raw
// history a whole day partition at a time (SQLite deletes the rows past
// their age, which these times are too).
constexpr int64_t kNextDay = (kT0 / kDay + 1) * kDay;

// One rollup row's measures.
struct Agg {
  int64_t intervals = 0, sent = 0, received = 0, lost = 0, errors = 0, p50_n = 0;
  double p50_sum = 0, p99_max = -1, max = -1;  // -1: no value
  bool operator==(const Agg& o) const {
    return std::tie(intervals, sent, received, lost, errors, p50_n) ==
               std::tie(o.intervals, o.sent, o.received, o.lost, o.errors, o.p50_n) &&
           std::abs(p50_sum - o.p50_sum) < 1e-9 && p99_max == o.p99_max && max == o.max;
  }
};
std::ostream& operator<<(std::ostream& os, const Agg& a) {
  return os << "{intervals " << a.intervals << ", sent " << a.sent << ", received " << a.received << ", lost " << a.lost
            << ", errors " << a.errors << ", p50 " << a.p50_sum << "/" << a.p50_n << ", p99 max " << a.p99_max
            << ", max " << a.max << "}";
}
using Key = std::tuple<std::string, std::string, std::string, int64_t>;  // src, dst, transport, period start

// True for a step that did something; a failed step fails the test and stops the loop.
bool Positive(const Result<int64_t>& n) {
  EXPECT_TRUE(n.ok()) << n.status().message();
  return n.ok() && n.value() > 0;
}

// What one probe made by MakeProbe adds to a rollup.
void Add(Agg* a, int errors, int received, double p99) {
  ++a->intervals;
  a->sent += 100;
  a->received += received;
  a->lost += 100 - received;
  a->errors += errors;
  if (received > 0) {
    a->p50_sum += 30.2;
    ++a->p50_n;
    a->p99_max = std::max(a->p99_max, p99);
    a->max = std::max(a->max, p99 + 6);
  }
}

class RollupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o;
    o.synchronous_full = false;
    auto s = db_.Open(o, kT0);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
  }
  // node-a reports every 10 s, interval ends kT0 + 10 s * i: to node-b over rc
  // (errors on every 4th, p99 rising) and to node-c over ud (every 5th lost whole).
  void Report(int i, const std::string& id_prefix = "r") { ReportTo(*store_, i, id_prefix); }
  // The same, stored through `store` (another collector on the same database).
  void ReportTo(Storage& store, int i, const std::string& id_prefix) {
    const int64_t end = kT0 + 10000LL * i;
    json r = MakeReport(id_prefix + std::to_string(i), "node-a", end);
    const int errors = i % 4 == 0 ? 2 : 0;
    const int received_c = i % 5 == 0 ? 0 : 100;
    r["probes"].push_back(MakeProbe("node-b", end, errors, 100, "rc", 50.0 + i));
    r["probes"].push_back(MakeProbe("node-c", end, 0, received_c, "ud", 40.0));
    auto res = store.writer.Ingest(r, end);
    ASSERT_TRUE(res.ok()) << res.status().message();
    Add(&want_minute_[{"node-a", "node-b", "rc", end / kMinute * kMinute}], errors, 100, 50.0 + i);
    Add(&want_minute_[{"node-a", "node-c", "ud", end / kMinute * kMinute}], 0, received_c, 40.0);
    Add(&want_hour_[{"node-a", "node-b", "rc", end / kHour * kHour}], errors, 100, 50.0 + i);
    Add(&want_hour_[{"node-a", "node-c", "ud", end / kHour * kHour}], 0, received_c, 40.0);
  }
  int RollAll(int64_t now) { return RollAllOn(*store_, now); }
  int RollAllOn(Storage& store, int64_t now) {
    int steps = 0;
    for (;;) {
      auto n = store.rollups.RollupStep(now, policy_);
      EXPECT_TRUE(n.ok()) << n.status().message();
      if (!n.ok() || n.value() == 0) return steps;
      if (++steps > 100000) return steps;
    }
  }
  // Every row of a rollup table, read on the store's own connection.
  std::map<Key, Agg> Read(const char* table, const char* period) {
    std::map<Key, Agg> out;
    const std::string sql = std::string("SELECT src, dst, transport, ") + period +
                            ", intervals, sent, received, lost, error_count, rtt_p50_sum, rtt_p50_n, "
                            "COALESCE(rtt_p99_max, -1), COALESCE(rtt_max, -1) FROM " + table;
    auto q = store_->db.conn().Q(sql.c_str());
    EXPECT_TRUE(q.ok()) << q.status().message();
    if (!q.ok()) return out;
    SqlStmt& s = *q.value();
    for (auto row = s.Step(); row.ok() && row.value(); row = s.Step())
      out[{std::string(s.TextView(0)), std::string(s.TextView(1)), std::string(s.TextView(2)), s.Int(3)}] =
          Agg{s.Int(4), s.Int(5), s.Int(6), s.Int(7), s.Int(8), s.Int(10), s.Real(9), s.Real(11), s.Real(12)};
    s.Reset();
    return out;
  }
  int64_t Rows(const char* table) {
    auto n = store_->db.CountRows(table);
    return n.ok() ? n.value() : -1;
  }

  testing::TestStoreDatabase db_{"collector_rollup_test"};
  std::unique_ptr<Storage> store_;
  RetentionPolicy policy_;
  std::map<Key, Agg> want_minute_, want_hour_;
};

TEST_F(RollupTest, ClosedSlicesAddUpToTheRawSummaries) {
  for (int i = 0; i < 30; ++i) Report(i);  // five minutes, starting mid-minute
  const int64_t last_end = kT0 + 290000;
  EXPECT_GT(RollAll(last_end + policy_.rollup_grace_ms + 60000), 0);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
  EXPECT_GT(store_->rollups.RollupThroughMs(), last_end);
  EXPECT_NE(Read("probe_hourly", "hour"), want_hour_) << "the last minutes wait for their ten to complete";
  // The hour in progress reaches probe_hourly ten minutes at a time.
  const int64_t ten_end = (last_end / (10 * kMinute) + 1) * 10 * kMinute;
  EXPECT_GT(RollAll(ten_end + policy_.rollup_grace_ms), 0);
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
  EXPECT_EQ(RollAll(ten_end + policy_.rollup_grace_ms), 0) << "a slice and a minute are rolled once";
}

TEST_F(RollupTest, NothingIsRolledBeforeItsSliceHasClosed) {
  for (int i = 0; i < 3; ++i) Report(i);
  // The slice holding the last end closes grace after it ends.
  const int64_t slice_end = (kT0 + 20000) / policy_.rollup_slice_ms * policy_.rollup_slice_ms + policy_.rollup_slice_ms;
  RollAll(slice_end + policy_.rollup_grace_ms - 1);
  auto minute = Read("probe_minute", "minute");
  int64_t intervals = 0;
  for (const auto& [k, a] : minute) intervals += a.intervals;
  EXPECT_EQ(intervals, 4) << "two intervals per pair rolled, the third's slice is still open";
  EXPECT_TRUE(Read("probe_hourly", "hour").empty()) << "no minute has completed";
  RollAll(slice_end + policy_.rollup_grace_ms);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
}

TEST_F(RollupTest, ALateSummaryIsAddedAsItIsStoredAndCountedOnce) {
  for (int i = 0; i < 12; ++i) Report(i);
  RollAll(kT0 + 10 * kMinute);
  ASSERT_EQ(Read("probe_minute", "minute"), want_minute_);
  // Replayed from an agent's spool: intervals inside minutes rolled long ago,
  // one of them in a minute whose hour row already holds it.
  Report(3, "late-");
  Report(7, "late-");
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
  RollAll(kT0 + 20 * kMinute);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_) << "a late summary is not rolled again";
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
}

// A slice is read without the store's lock: a summary stored in it between
// that read and the write is counted once, by the step (its slice was not
// yet rolled, so it was not added as late).
TEST_F(RollupTest, ASummaryStoredWhileItsSliceIsReadIsCountedOnce) {
  for (int i = 0; i < 6; ++i) Report(i);
  int stored = 0;
  store_->rollups.SetRollupReadHook([&] {
    if (stored++ == 0) Report(0, "meanwhile-");  // the first slice's interval, again
  });
  RollAll(kT0 + 10 * kMinute);
  store_->rollups.SetRollupReadHook(nullptr);
  EXPECT_GT(stored, 1);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
}

// The minutes a step completed are summed into hours by the next step, on a
// reader without the store's lock: a late summary stored in such a minute
// while it is read, or after it was merged, reaches its hour once.
TEST_F(RollupTest, ALateSummaryInAMinuteBeingMergedReachesItsHourOnce) {
  for (int i = 0; i < 12; ++i) Report(i);
  const int64_t first_ten_end = (kT0 / (10 * kMinute) + 1) * 10 * kMinute;
  int late = 0;
  store_->rollups.SetRollupReadHook([&] {
    // The step's mark is still the one it started from: past the first ten
    // minutes, the first such step is the one merging them.
    if (late == 0 && store_->rollups.RollupThroughMs() >= first_ten_end) Report(0, "late" + std::to_string(late++) + "-");
  });
  RollAll(kT0 + 20 * kMinute);
  store_->rollups.SetRollupReadHook(nullptr);
  EXPECT_EQ(late, 1);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
}

// A late summary is owed to the step merging its minutes only once its
// report commits: one whose commit failed reaches no hour.
TEST_F(RollupTest, ALateSummaryRolledBackWhileItsMinutesAreMergedReachesNoHour) {
  for (int i = 0; i < 12; ++i) Report(i);
  const int64_t first_ten_end = (kT0 / (10 * kMinute) + 1) * 10 * kMinute;
  int tried = 0;
  store_->rollups.SetRollupReadHook([&] {
    if (tried > 0 || store_->rollups.RollupThroughMs() < first_ten_end) return;
    ++tried;
    store_->db.SetIngestFaultHook([](const std::string& at) {
      return at == "commit" ? Status::Error("injected failure at commit") : Status::Ok();
    });
    json r = MakeReport("late-failed", "node-a", kT0);
    r["probes"].push_back(MakeProbe("node-b", kT0, 0, 100, "rc", 50.0));
    EXPECT_FALSE(store_->writer.Ingest(r, kT0).ok());
    store_->db.SetIngestFaultHook(nullptr);
  });
  RollAll(kT0 + 20 * kMinute);
  store_->rollups.SetRollupReadHook(nullptr);
  EXPECT_EQ(tried, 1);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
}

TEST_F(RollupTest, RawSummariesAreKeptUntilRolledThenAgeOut) {
  for (int i = 0; i < 12; ++i) Report(i);
  policy_.raw_max_age_ms = kMinute;
  const int64_t now = kNextDay + kHour;
  while (Positive(store_->retention.RetentionStep(now, policy_))) {
  }
  EXPECT_EQ(Rows("probe_summaries"), 24) << "not rolled up yet: kept whatever their age";
  RollAll(now);
  while (Positive(store_->retention.RetentionStep(now, policy_))) {
  }
  EXPECT_EQ(Rows("probe_summaries"), 0);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_) << "the rollups outlive the raw rows";
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
  EXPECT_EQ(Rows("reports"), 12) << "report ids outlive the raw rows";
  {
    json replay = MakeReport("r3", "node-a", kT0 + 30000);  // its acknowledgement was lost
    replay["probes"].push_back(MakeProbe("node-b", kT0 + 30000, 0, 100, "rc", 53.0));
    auto res = store_->writer.Ingest(replay, now);
    ASSERT_TRUE(res.ok()) << res.status().message();
    EXPECT_TRUE(res.value().duplicate);
  }
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_) << "a replay is not counted twice";
  policy_.minute_max_age_ms = kHour - 5 * kMinute;  // every minute rolled is older
  while (Positive(store_->retention.RetentionStep(now + kMinute, policy_))) {
  }
  EXPECT_EQ(Rows("probe_minute"), 0) << "minute rollups age out after their own time";
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
}

// Counts past int64_t (the validator refuses them; here they reach the store
// directly) saturate in the rollups instead of failing the slice: SQLite's
// SUM() would raise "integer overflow" on every pass.
TEST_F(RollupTest, SumsPastInt64SaturateAndNeverFailTheRollup) {
  for (int i = 0; i < 2; ++i) {  // two summaries of one pair in one minute
    json r = MakeReport("huge-" + std::to_string(i), "node-a", kT0 + i);
    json p = MakeProbe("node-b", kT0 + i);
    for (const char* k : {"sent", "received", "lost"}) p["summary"][k] = INT64_MAX;
    p["summary"]["errors_by_status"]["RETRY_EXC_ERR (12)"] = INT64_MAX;
    r["probes"].push_back(p);
    auto res = store_->writer.Ingest(r, kT0 + i);
    ASSERT_TRUE(res.ok()) << res.status().message();
  }
  const int64_t now = kNextDay + kHour;
  EXPECT_GT(RollAll(now), 0);  // RollAll fails the test on a failed step
  auto minute = Read("probe_minute", "minute");
  ASSERT_EQ(minute.size(), 1u);
  const Agg& a = minute.begin()->second;
  EXPECT_EQ(a.intervals, 2);
  EXPECT_EQ(a.sent, int64_t{1} << 62) << "capped, so a merge of two capped values still fits";
  EXPECT_EQ(a.errors, int64_t{1} << 62);
  EXPECT_EQ(Read("probe_hourly", "hour").begin()->second.sent, int64_t{1} << 62);
  // A late summary merged into the capped minute and hour stays capped, too.
  json late = MakeReport("huge-late", "node-a", kT0 + 2);
  json p = MakeProbe("node-b", kT0 + 2);
  for (const char* k : {"sent", "received", "lost"}) p["summary"][k] = INT64_MAX;
  late["probes"].push_back(p);
  auto res = store_->writer.Ingest(late, now);
  ASSERT_TRUE(res.ok()) << res.status().message();
  EXPECT_EQ(Read("probe_minute", "minute").begin()->second.sent, int64_t{1} << 62);
  policy_.raw_max_age_ms = kMinute;
  while (Positive(store_->retention.RetentionStep(now, policy_))) {
  }
  EXPECT_EQ(Rows("probe_summaries"), 0) << "rolled, so retention deletes them";
}

std::string MetricsText(const CollectorMetrics& m) { return prometheus::TextSerializer().Serialize(m.Collect()); }

// A slice that fails to roll (here: a trigger refuses its minute) is logged,
// counted and skipped; the slices after it are rolled, and the retention
// deletes of the same pass run, the raw rows of the skipped slice included.
TEST_F(RollupTest, AFailedStepIsSkippedAndRetentionStillRuns) {
  for (int i = 0; i < 30; ++i) Report(i);  // five minutes
  const int64_t bad_minute = (kT0 + 60000) / kMinute * kMinute;
  {
    const std::string minute = std::to_string(bad_minute);
    Status st = testing::kStoreOnPostgres
                    ? store_->db.conn().Exec(
                          "CREATE FUNCTION refuse_minute() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.minute = " +
                          minute +
                          " THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$; "
                          "CREATE TRIGGER refuse_minute BEFORE INSERT ON probe_minute FOR EACH ROW EXECUTE FUNCTION "
                          "refuse_minute()")
                    : store_->db.conn().Exec("CREATE TRIGGER refuse_minute BEFORE INSERT ON probe_minute WHEN NEW.minute = " +
                                             minute + " BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    ASSERT_TRUE(st.ok()) << st.message();
  }
  policy_.raw_max_age_ms = kMinute;
  CollectorMetrics metrics;
  std::vector<std::string> log;
  const int64_t now = kNextDay + kHour;
  RetentionWorker w(*store_, policy_, 3600 * 1000, [=] { return now; }, [&log](const std::string& l) { log.push_back(l); },
                    &metrics);
  auto pass = w.RunPass();
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_GT(pass.value(), 0) << "the deletes ran";
  EXPECT_EQ(Rows("probe_summaries"), 0) << "nothing holds the raw retention, the skipped slice's rows neither";
  EXPECT_GT(store_->rollups.RollupThroughMs(), kT0 + 290000);
  auto minute = Read("probe_minute", "minute");
  for (auto& [k, a] : want_minute_) {
    if (std::get<3>(k) == bad_minute) continue;
    EXPECT_EQ(minute[k], a) << "minute " << std::get<3>(k) << " rolled";
  }
  for (auto& [k, a] : minute) EXPECT_NE(std::get<3>(k), bad_minute) << "the failed minute is left out";
  const std::string text = MetricsText(metrics);
  EXPECT_NE(text.find("rdmascope_collector_retention_passes_total{result=\"ok\"} 1"), std::string::npos) << text;
  EXPECT_EQ(text.find("rdmascope_collector_rollup_steps_skipped_total 0"), std::string::npos) << text;
  EXPECT_TRUE(std::any_of(log.begin(), log.end(), [](const std::string& l) {
    return l.find("step was skipped") != std::string::npos && l.find("injected failure") != std::string::npos;
  }));
  // The next pass has nothing left to fail on.
  const size_t said = log.size();
  ASSERT_TRUE(w.RunPass().ok());
  EXPECT_EQ(log.size(), said) << log.back();
  EXPECT_NE(MetricsText(metrics).find("rdmascope_collector_retention_passes_total{result=\"ok\"} 2"),
            std::string::npos);
}

// Minutes reach their hour ten at a time: until then, a minute rollup is
// the only copy of its summaries once the raw rows are gone, so it is kept
// whatever its age.
TEST_F(RollupTest, MinuteRollupsAreKeptUntilMergedIntoHoursThenAgeOut) {
  for (int i = 0; i < 12; ++i) Report(i);
  const int64_t now = kT0 + 5 * kMinute;  // every slice closed, the ten minutes not complete
  RollAll(now);
  ASSERT_EQ(Read("probe_minute", "minute"), want_minute_);
  ASSERT_TRUE(Read("probe_hourly", "hour").empty());
  policy_.minute_max_age_ms = 1;
  while (Positive(store_->retention.RetentionStep(now, policy_))) {
  }
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_) << "not merged into hours yet: kept whatever their age";
  const int64_t later = kNextDay + 20 * kMinute;
  RollAll(later);
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
  while (Positive(store_->retention.RetentionStep(later, policy_))) {
  }
  EXPECT_EQ(Rows("probe_minute"), 0) << "merged, they age out after their own time";
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
}

TEST_F(RollupTest, TheMarkSurvivesAReopen) {
  for (int i = 0; i < 12; ++i) Report(i);
  RollAll(kT0 + 10 * kMinute);
  const int64_t mark = store_->rollups.RollupThroughMs();
  ASSERT_GT(mark, kT0 + 110000);
  store_.reset();
  SetUp();
  EXPECT_EQ(store_->rollups.RollupThroughMs(), mark);
  EXPECT_EQ(RollAll(kT0 + 10 * kMinute), 0);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
}

#ifdef RDMASCOPE_STORE_TESTS_ON_POSTGRES  // several collectors share one database's marks
// A collector opened before the leader rolled holds old marks: when it
// becomes leader it rolls from the shared marks (nothing twice), and its
// writer finds a summary late against them (counted once, in the rollups).
TEST_F(RollupTest, AnotherCollectorRollsAndFindsLateSummariesByTheSharedMarks) {
  StoreOptions o;
  o.synchronous_full = false;
  auto other = db_.Open(o, kT0);
  ASSERT_TRUE(other.ok()) << other.status().message();
  for (int i = 0; i < 12; ++i) Report(i);
  RollAll(kT0 + 10 * kMinute);
  ASSERT_EQ(Read("probe_minute", "minute"), want_minute_);
  ASSERT_EQ(Read("probe_hourly", "hour"), want_hour_);
  EXPECT_EQ(RollAllOn(*other.value(), kT0 + 10 * kMinute), 1) << "one step that finds the marks moved, then none";
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_) << "the other collector rolled a slice again";
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
  ReportTo(*other.value(), 3, "late-");  // replayed from a spool to the other collector
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_) << "a late summary stored by the other collector";
  EXPECT_EQ(Read("probe_hourly", "hour"), want_hour_);
  EXPECT_EQ(RollAll(kT0 + 10 * kMinute), 0);
  EXPECT_EQ(Read("probe_minute", "minute"), want_minute_);
}
#endif

#ifndef RDMASCOPE_STORE_TESTS_ON_POSTGRES  // SQLite files of earlier versions
TEST(RollupMigration, HourlyRollupsWrittenBeforeItCountAsRolled) {
  // A database of version 5 held hourly rollups written per summary.
  testsupport::ScratchDir dir("collector_rollup_migration");
  const std::string path = dir.File("old.db");
  auto store = testing::UpgradeFrom(path, 5,
                                    "INSERT INTO probe_hourly VALUES ('a', 'b', 'rc', 7200000, 1, 100, 100, 0, 0, 30, "
                                    "1, 50, 56), ('a', 'b', 'rc', 10800000, 1, 100, 100, 0, 0, 30, 1, 50, 56)");
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ(store.value()->rollups.RollupThroughMs(), 14400000) << "the newest hour seen is whole from now on";
}

// Version 9 keys the rollups by (src, period, dst, transport): the rows of a
// version-8 database are all there after the upgrade, a source's query
// reads its own, and the upserts still merge into them.
TEST(RollupMigration, RollupsKeyedBySourceThenPeriodKeepEveryRow) {
  testsupport::ScratchDir dir("collector_rollup_migration");
  const std::string path = dir.File("old.db");
  auto opened = testing::UpgradeFrom(
      path, 8,
      "INSERT INTO probe_minute VALUES ('a', 'b', 'rc', 60000, 1, 100, 100, 0, 0, 30, 1, 50, 56), "
      "('a', 'c', 'ud', 60000, 1, 100, 90, 10, 0, 30, 1, 50, 56), "
      "('b', 'a', 'rc', 120000, 1, 100, 100, 0, 0, 30, 1, 50, 56); "
      "INSERT INTO probe_hourly VALUES ('a', 'b', 'rc', 0, 1, 100, 100, 0, 0, 30, 1, 50, 56), "
      "('b', 'a', 'rc', 3600000, 1, 100, 100, 0, 0, 30, 1, 50, 56)");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  Storage& store = *opened.value();
  EXPECT_EQ(store.db.CountRows("probe_minute").value(), 3);
  EXPECT_EQ(store.db.CountRows("probe_hourly").value(), 2);
  auto of_a = store.history.ProbeRollups(false, std::string("a"), std::nullopt, 0, 600000, 100);
  ASSERT_TRUE(of_a.ok()) << of_a.status().message();
  ASSERT_EQ(of_a.value()["rollups"].size(), 2u);
  EXPECT_EQ(of_a.value()["rollups"][1]["lost"], 10);
  auto hours = store.history.ProbeRollups(true, std::nullopt, std::string("a"), 0, 7200000, 100);
  ASSERT_TRUE(hours.ok()) << hours.status().message();
  ASSERT_EQ(hours.value()["rollups"].size(), 1u);
  EXPECT_EQ(hours.value()["rollups"][0]["src"], "b");

  auto db = Db::Open(path);
  ASSERT_TRUE(db.ok());
  auto keys = db.value().Prepare("SELECT sql FROM sqlite_master WHERE name IN ('probe_minute', 'probe_hourly') "
                                 "ORDER BY name");
  ASSERT_TRUE(keys.ok());
  auto rows = Rows(keys.value());
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows.value().size(), 2u);
  EXPECT_NE(rows.value()[0]["sql"].get<std::string>().find("PRIMARY KEY (src, hour, dst, transport)"),
            std::string::npos);
  EXPECT_NE(rows.value()[1]["sql"].get<std::string>().find("PRIMARY KEY (src, minute, dst, transport)"),
            std::string::npos);
}

#endif

}  // namespace
}  // namespace rdmascope::collector
