// The read snapshot: the matrix, /metrics rows, worst pairs and pinglist nodes
// come from memory, follow every commit, honour the time windows, survive a
// restart, and agree with the SQL they replaced (run here as the oracle).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <tuple>
#include <random>
#include <string>

#include "collector/ingest/group_commit.h"
#include "collector/store/storage.h"
#include "collector/store/store_rows.h"
#include "tests/collector/test_batch.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;

constexpr int64_t kT0 = 1700000000000;

// The newest-per-pair SQL the snapshot replaced, kept as the oracle.
constexpr char kOracleWorst[] =
    "SELECT src, dst, transport, local_device, local_port, remote_host, interval_start AS interval_start_ms, "
    "interval_end AS interval_end_ms, sent, received, lost, loss_ratio, rtt_count, rtt_min AS rtt_min_us, "
    "rtt_avg AS rtt_avg_us, rtt_p50 AS rtt_p50_us, rtt_p90 AS rtt_p90_us, rtt_p99 AS rtt_p99_us, "
    "rtt_p999 AS rtt_p999_us, rtt_max AS rtt_max_us, network_p50 AS network_p50_us, network_p99 AS network_p99_us, "
    "responder_p50 AS responder_p50_us, responder_p99 AS responder_p99_us, read_p50 AS read_p50_us, "
    "read_p99 AS read_p99_us, error_count, errors_by_status AS errors_by_status_json, report_id, rail, "
    "remote_device, remote_port, not_run FROM probe_summaries JOIN (SELECT src AS l_src, dst AS l_dst, "
    "transport AS l_transport, MAX(interval_end) AS l_end FROM probe_summaries WHERE interval_end >= ?1 "
    "GROUP BY src, dst, transport) ON src = l_src AND dst = l_dst AND transport = l_transport AND interval_end = l_end "
    "ORDER BY (error_count > 0) DESC, COALESCE(loss_ratio, 0) DESC, COALESCE(rtt_p99, 0) DESC, src, dst LIMIT ?2";
// Each pair's newest row in the window (one rail in these tests).
#define NEWEST_PAIRS                                                                                       \
  "(SELECT * FROM probe_summaries JOIN (SELECT src AS l_src, dst AS l_dst, transport AS l_transport, "    \
  "MAX(interval_end) AS l_end FROM probe_summaries WHERE interval_end >= ?1 GROUP BY src, dst, transport) " \
  "ON src = l_src AND dst = l_dst AND transport = l_transport AND interval_end = l_end)"
constexpr char kOracleMetricsNodes[] =
    "SELECT src, transport, MAX(rtt_p50) AS rtt_p50_max, MAX(rtt_p90) AS rtt_p90_max, MAX(rtt_p99) AS rtt_p99_max, "
    "COALESCE(SUM(CASE WHEN rtt_avg IS NOT NULL THEN rtt_count END), 0) AS rtt_count, "
    "COALESCE(SUM(rtt_count * rtt_avg), 0.0) AS rtt_sum_us, SUM(sent) AS sent, SUM(lost) AS lost "
    "FROM " NEWEST_PAIRS " GROUP BY src, transport ORDER BY src, transport";
constexpr char kOracleMetricsWorst[] =
    "SELECT src, dst, transport, rtt_p99 FROM " NEWEST_PAIRS
    " WHERE rtt_p99 IS NOT NULL ORDER BY rtt_p99 DESC, src, transport, dst LIMIT ?2";
#undef NEWEST_PAIRS

class ReadSnapshotTest : public ::testing::Test {
 protected:
  testsupport::ScratchDir scratch_{"collector_read_snapshot_test"};
  void SetUp() override {
    dir_ = scratch_.path();
    Reopen();
  }
  void TearDown() override { store_.reset(); }
  void Reopen() {
    store_.reset();
    StoreOptions o;
    o.path = dir_ + "/store.db";
    o.synchronous_full = false;
    auto s = Storage::Open(o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
  }
  void Ingest(const json& r, int64_t at = kT0) {
    auto res = store_->writer.Ingest(r, at);
    ASSERT_TRUE(res.ok()) << res.status().message();
  }
  json Oracle(const char* sql, int64_t a, std::optional<int64_t> b = std::nullopt) {
    auto db = Db::Open(dir_ + "/store.db");
    EXPECT_TRUE(db.ok());
    auto q = db.value().Prepare(sql);
    EXPECT_TRUE(q.ok()) << q.status().message();
    q.value().Bind(1, a);
    if (b) q.value().Bind(2, *b);
    auto rows = Rows(q.value());
    EXPECT_TRUE(rows.ok());
    return rows.value();
  }
  json Matrix(int64_t since = -1, std::optional<std::string> rail = std::nullopt) {
    auto m = store_->read.Matrix(since, 1000, rail);
    EXPECT_TRUE(m.ok());
    return m.value();
  }
  std::string dir_;
  std::unique_ptr<Storage> store_;
};

json Probe(const std::string& dst, int64_t end, double p99, const std::string& rail, int errors = 0,
           const std::string& transport = "rc") {
  json p = MakeProbe(dst, end, errors, 100, transport, p99);
  p["rail"] = rail;
  return p;
}

TEST_F(ReadSnapshotTest, FollowsEachCommitAndKeepsTheNewestPerPair) {
  json a = MakeReport("a-1", "node-a", kT0);
  a["probes"].push_back(Probe("node-b", kT0, 50.0, "0"));
  Ingest(a);
  json m = Matrix();
  ASSERT_EQ(m["rows"].size(), 1u);
  EXPECT_EQ(m["rows"][0][5], 50.0);
  EXPECT_EQ(m["nodes"].size(), 2u);  // node-b never reported: listed with nulls
  EXPECT_TRUE(m["nodes"][1]["labels"].is_null());

  json newer = MakeReport("a-2", "node-a", kT0 + 10000);
  newer["probes"].push_back(Probe("node-b", kT0 + 10000, 70.0, "0"));
  Ingest(newer, kT0 + 10000);
  EXPECT_EQ(Matrix()["rows"][0][5], 70.0);

  // A replayed older report does not replace the newer summary.
  json old = MakeReport("a-0", "node-a", kT0 - 10000);
  old["probes"].push_back(Probe("node-b", kT0 - 10000, 999.0, "0"));
  Ingest(old, kT0 + 11000);
  EXPECT_EQ(Matrix()["rows"][0][5], 70.0);
  auto worst = store_->read.WorstPairs(0, 10);
  ASSERT_TRUE(worst.ok());
  ASSERT_EQ(worst.value()["pairs"].size(), 1u);
  EXPECT_EQ(worst.value()["pairs"][0]["rtt_p99_us"], 70.0);
  EXPECT_EQ(worst.value()["pairs"][0]["report_id"], "a-2");

  // Pinglist nodes and /metrics rows follow too.
  auto infos = store_->read.NodeInfos();
  ASSERT_TRUE(infos.ok());
  ASSERT_EQ(infos.value().size(), 1u);
  EXPECT_EQ(infos.value()[0].last_report_at, kT0 + 11000);
  EXPECT_EQ(infos.value()[0].labels["group"], "rack1");
  auto snap = store_->read.MetricsSnapshot(0, 5);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap.value()["ports"].size(), 1u);
  EXPECT_EQ(snap.value()["counters"].size(), 7u);  // VL15_dropped is null: left out
  EXPECT_EQ(snap.value()["probe_nodes"].size(), 1u);
  EXPECT_EQ(snap.value()["worst_pairs"].size(), 1u);
}

TEST_F(ReadSnapshotTest, GroupCommitsPublishEveryReport) {
  {
    GroupCommitter committer(*store_, 4);
    std::vector<json> reports;
    for (int i = 0; i < 6; ++i) {
      json r = MakeReport("r-" + std::to_string(i), "node-" + std::to_string(i), kT0);
      r["probes"].push_back(Probe("node-x", kT0, 10.0 + i, "0"));
      reports.push_back(r);
    }
    for (const json& r : reports) ASSERT_TRUE(committer.Submit(r, kT0, std::nullopt).ok());
  }
  EXPECT_EQ(Matrix()["rows"].size(), 6u);
  EXPECT_EQ(store_->read.NodeInfos().value().size(), 6u);
}

// A report of node with one probe summary to dst ending at `at`, on rail "0".
json OneProbeReport(const std::string& id, const std::string& node, const std::string& dst, int64_t at, double p99) {
  json r = MakeReport(id, node, at);
  r["probes"].push_back(Probe(dst, at, p99, "0"));
  return r;
}

// The matrix's pairs as "src>dst", in its order.
std::vector<std::string> MatrixPairs(const json& matrix) {
  std::vector<std::string> pairs;
  for (const json& r : matrix["rows"])
    pairs.push_back(matrix["nodes"][r[0].get<int>()]["name"].get<std::string>() + ">" +
                    matrix["nodes"][r[1].get<int>()]["name"].get<std::string>());
  return pairs;
}

// The committer publishes a batch off the writer, yet a report is answered
// only once it is published: read right after its answer, it is there. The
// reports of one node land in many batches that are published in commit
// order, so the node keeps every pair that any of them sent. Half the
// reports come with their probes and snapshot rows made by the caller, as
// the HTTP workers make them; the snapshot equals a reload either way.
TEST_F(ReadSnapshotTest, AnAnsweredReportIsAlreadyInTheSnapshot) {
  constexpr int kThreads = 4, kEach = 6;
  std::vector<json> reports;
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kEach; ++i) {
      const std::string n = std::to_string(t) + "-" + std::to_string(i);
      reports.push_back(OneProbeReport("r-" + n, "node-a", "dst-" + n, kT0 + 1000 * i, 10.0));
    }
  std::vector<std::string> missing;
  std::mutex missing_mu;
  {
    GroupCommitter committer(*store_, 3);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) {
          const json& r = reports[t * kEach + i];
          const std::vector<ProbeInput> probes = ExtractProbes(r);
          std::vector<std::shared_ptr<const ProbeRow>> rows;
          const auto id = std::make_shared<const std::string>(r["report_id"].get<std::string>());
          for (const ProbeInput& p : probes) rows.push_back(std::make_shared<const ProbeRow>(ProbeRowFromInput("node-a", p, id)));
          auto res = i % 2 ? committer.Submit(r, kT0, std::nullopt, &probes, &rows) : committer.Submit(r, kT0, std::nullopt);
          const std::string want = "node-a>" + r["probes"][0]["target"].get<std::string>();
          auto m = store_->read.Matrix(-1, 1000, std::nullopt);
          std::vector<std::string> pairs = m.ok() ? MatrixPairs(m.value()) : std::vector<std::string>{};
          if (!res.ok() || std::find(pairs.begin(), pairs.end(), want) == pairs.end()) {
            std::lock_guard<std::mutex> lock(missing_mu);
            missing.push_back(want + (res.ok() ? "" : " (" + res.status().message() + ")"));
          }
        }
      });
    for (std::thread& t : threads) t.join();
  }
  EXPECT_TRUE(missing.empty()) << "answered but not readable: " << ::testing::PrintToString(missing);
  EXPECT_EQ(MatrixPairs(Matrix()).size(), static_cast<size_t>(kThreads * kEach));
  const json matrix = Matrix();
  Reopen();
  EXPECT_EQ(Matrix(), matrix) << "a reload from the database gives the same";
}

// A deferred batch changes the snapshot's nodes only when its update is
// published; until then reads answer as before the batch.
TEST_F(ReadSnapshotTest, ADeferredUpdateShowsOnlyOncePublished) {
  Ingest(OneProbeReport("a-0", "node-a", "node-b", kT0, 11.0));
  json a1 = OneProbeReport("a-1", "node-a", "node-c", kT0 + 10000, 12.0);
  std::vector<ReportWriter::BatchItem> items = testing::BatchOf({&a1}, kT0 + 10000);
  SnapshotUpdate update;
  store_->writer.IngestBatch(items, &update);
  ASSERT_TRUE(items[0].status.ok()) << items[0].status.message();
  ASSERT_TRUE(update.pending);
  EXPECT_EQ(MatrixPairs(Matrix()), (std::vector<std::string>{"node-a>node-b"}));
  store_->read.PublishSnapshot(update);
  EXPECT_FALSE(update.pending);
  EXPECT_EQ(MatrixPairs(Matrix()), (std::vector<std::string>{"node-a>node-b", "node-a>node-c"}));
}

// The snapshot takes a commit's probe rows from memory: a report rolled back
// to its savepoint inside a batch must leave none of them behind, and what
// the others left must be what a reload from the database gives.
TEST_F(ReadSnapshotTest, AReportRolledBackInABatchLeavesNoRows) {
  json a = MakeReport("a-1", "node-a", kT0), b = MakeReport("b-1", "node-b", kT0), c = MakeReport("c-1", "node-c", kT0);
  a["probes"].push_back(Probe("node-b", kT0, 11.0, "0"));
  b["probes"].push_back(Probe("node-a", kT0, 12.0, "0"));
  b["probes"].push_back(Probe("node-c", kT0, 13.0, "0"));
  c["probes"].push_back(Probe("node-a", kT0, 14.0, "1", 2));
  Ingest(MakeReport("b-0", "node-b", kT0 - 10000), kT0 - 10000);  // node-b is known before the batch
  int probe_calls = 0;
  store_->db.SetIngestFaultHook([&](const std::string& at) {
    // b's second probe: its first row is already written when b fails.
    if (at == "probe" && ++probe_calls == 3) return Status::Error("injected failure at probe");
    return Status::Ok();
  });
  std::vector<ReportWriter::BatchItem> items = testing::BatchOf({&a, &b, &c}, kT0);
  store_->writer.IngestBatch(items);
  store_->db.SetIngestFaultHook(nullptr);
  ASSERT_TRUE(items[0].status.ok());
  ASSERT_FALSE(items[1].status.ok());
  ASSERT_TRUE(items[2].status.ok());
  const json matrix = Matrix();
  EXPECT_EQ(MatrixPairs(matrix), (std::vector<std::string>{"node-a>node-b", "node-c>node-a"})) << matrix.dump();
  const json worst = store_->read.WorstPairs(0, 10).value(), metrics = store_->read.MetricsSnapshot(0, 5).value();
  Reopen();
  EXPECT_EQ(Matrix(), matrix);
  EXPECT_EQ(store_->read.WorstPairs(0, 10).value(), worst);
  EXPECT_EQ(store_->read.MetricsSnapshot(0, 5).value(), metrics);
}

// A batch's writer frees the node states it replaced after answering, off
// the store lock: the batch hands them over instead of dropping them.
TEST_F(ReadSnapshotTest, ABatchHandsOverTheStatesItReplaced) {
  Ingest(OneProbeReport("a-0", "node-a", "node-b", kT0, 11.0));
  std::weak_ptr<const NodeState> before;
  {
    auto parts = store_->read.MetricsSnapshotParts(0, 5);
    ASSERT_TRUE(parts.ok()) << parts.status().message();
    ASSERT_EQ(parts.value().nodes.size(), 1u);
    before = parts.value().nodes[0];
  }
  json a1 = OneProbeReport("a-1", "node-a", "node-b", kT0 + 10000, 12.0);
  std::vector<ReportWriter::BatchItem> items = testing::BatchOf({&a1}, kT0 + 10000);
  store_->writer.IngestBatch(items);
  ASSERT_TRUE(items[0].status.ok()) << items[0].status.message();
  EXPECT_FALSE(before.expired()) << "replaced, but not yet freed";
  auto replaced = store_->read.TakeReplacedStates();
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_EQ(replaced[0], before.lock());
  replaced.clear();
  EXPECT_TRUE(before.expired());
  EXPECT_TRUE(store_->read.TakeReplacedStates().empty()) << "handed over once";
}

TEST_F(ReadSnapshotTest, WindowsLeaveStalePairsOut) {
  json a = MakeReport("a-1", "node-a", kT0);
  a["probes"].push_back(Probe("node-b", kT0, 50.0, "0"));
  Ingest(a);
  json b = MakeReport("b-1", "node-b", kT0 + 600000);
  b["probes"].push_back(Probe("node-a", kT0 + 600000, 40.0, "0"));
  Ingest(b, kT0 + 600000);
  // Default matrix window: the last three intervals before the newest report.
  json m = Matrix();
  ASSERT_EQ(m["rows"].size(), 1u);
  EXPECT_EQ(m["nodes"][m["rows"][0][0].get<int>()]["name"], "node-b");
  EXPECT_EQ(Matrix(0)["rows"].size(), 2u);
  EXPECT_EQ(store_->read.WorstPairs(kT0 + 1, 10).value()["pairs"].size(), 1u);
  EXPECT_EQ(store_->read.MetricsSnapshot(kT0 + 1, 5).value()["worst_pairs"].size(), 1u);
  EXPECT_EQ(store_->read.MetricsSnapshot(kT0, 5).value()["worst_pairs"].size(), 2u);
  EXPECT_EQ(store_->read.MetricsSnapshot(kT0 + 1, 5).value()["probe_nodes"].size(), 1u);
  EXPECT_EQ(store_->read.MetricsSnapshot(kT0, 5).value()["probe_nodes"].size(), 2u);
}

TEST_F(ReadSnapshotTest, NotRunSummariesStayOutOfTheMatrixOnly) {
  json a = MakeReport("a-1", "node-a", kT0);
  a["probes"].push_back(Probe("node-b", kT0, 50.0, "0"));
  Ingest(a);
  json down = MakeReport("a-2", "node-a", kT0 + 10000);
  json p = Probe("node-b", kT0 + 10000, 0, "0");
  p["not_run"] = "local port DOWN";
  down["probes"].push_back(p);
  Ingest(down, kT0 + 10000);
  json m = Matrix(0);
  ASSERT_EQ(m["rows"].size(), 1u);
  EXPECT_EQ(m["rows"][0][3], kT0);  // the newest summary that ran
  EXPECT_EQ(store_->read.WorstPairs(0, 10).value()["pairs"][0]["not_run"], "local port DOWN");
}

TEST_F(ReadSnapshotTest, RailsAreKeptApartAndFiltered) {
  json a = MakeReport("a-1", "node-a", kT0);
  a["probes"].push_back(Probe("node-b", kT0, 50.0, "0"));
  a["probes"].push_back(Probe("node-b", kT0, 80.0, "1", /*errors=*/2));
  Ingest(a);
  EXPECT_EQ(Matrix(0, "1")["rows"].size(), 1u);
  EXPECT_EQ(Matrix(0, "1")["rows"][0][5], 80.0);
  EXPECT_EQ(Matrix(0, "7")["rows"].size(), 0u);
  EXPECT_EQ(store_->read.WorstPairs(0, 10).value()["pairs"].size(), 2u);
  EXPECT_EQ(store_->read.WorstPairs(0, 10).value()["pairs"][0]["rail"], "1");  // errors first
}

TEST_F(ReadSnapshotTest, AgreesWithTheSqlItReplaced) {
  for (int i = 0; i < 4; ++i) {
    const int64_t t = kT0 + i * 10000;
    for (const char* node : {"node-a", "node-b", "node-c"}) {
      json r = MakeReport(std::string(node) + "-" + std::to_string(i), node, t);
      for (const char* dst : {"node-a", "node-b", "node-c"}) {
        if (std::string(dst) == node) continue;
        r["probes"].push_back(Probe(dst, t, 20.0 + i * 3 + dst[5], "0", (i + dst[5]) % 3 == 0 ? 1 : 0));
        r["probes"].push_back(Probe(dst, t, 25.0 + i, "0", 0, "ud"));
      }
      Ingest(r, t);
    }
  }
  // kT0: every pair is in the window and the newest is within the nodes'
  // summary horizon, so /metrics reads the per-node summaries; the other
  // windows make it read the pairs.
  for (int64_t since : {int64_t{0}, kT0, kT0 + 15000}) {
    EXPECT_EQ(store_->read.WorstPairs(since, 7).value()["pairs"], Oracle(kOracleWorst, since, 7)) << since;
    const json metrics = store_->read.MetricsSnapshot(since, 5).value();
    EXPECT_EQ(metrics["probe_nodes"], Oracle(kOracleMetricsNodes, since)) << since;
    EXPECT_EQ(metrics["worst_pairs"], Oracle(kOracleMetricsWorst, since, 5)) << since;
    EXPECT_EQ(metrics["worst_pairs"].size(), 5u);
    const int more = static_cast<int>(MetricsSummary::kWorstKept) + 1;  // beyond what a summary keeps
    EXPECT_EQ(store_->read.MetricsSnapshot(since, more).value()["worst_pairs"], Oracle(kOracleMetricsWorst, since, more))
        << since;
  }
}

TEST_F(ReadSnapshotTest, ARestartReloadsTheSameAnswers) {
  json a = MakeReport("a-1", "node-a", kT0);
  a["probes"].push_back(Probe("node-b", kT0, 50.0, "0", 1));
  a["probes"].push_back(Probe("node-c", kT0, 60.0, "1"));
  Ingest(a);
  json b = MakeReport("b-1", "node-b", kT0 + 5000, /*state=*/1);
  b["probes"].push_back(Probe("node-a", kT0 + 5000, 40.0, "0"));
  Ingest(b, kT0 + 5000);
  const json matrix = Matrix(), worst = store_->read.WorstPairs(0, 10).value();
  const json metrics = store_->read.MetricsSnapshot(0, 5).value();
  ASSERT_EQ(metrics["events_open"].size(), 2u);  // port_state and wc_error
  Reopen();
  EXPECT_EQ(Matrix(), matrix);
  EXPECT_EQ(store_->read.WorstPairs(0, 10).value(), worst);
  EXPECT_EQ(store_->read.MetricsSnapshot(0, 5).value(), metrics);
  EXPECT_EQ(store_->read.NodeInfos().value().size(), 2u);
}

// Each published node lists the newest row of every one of its pairs,
// ordered by (rail, destination, transport) pointers, so the same pairs keep
// one order: after new rows, a replayed older report, and a restart.
TEST_F(ReadSnapshotTest, NewestRowsAreEveryPairsNewestRowInAKeptOrder) {
  using Key = std::tuple<const std::string*, const std::string*, const std::string*>;
  auto keys_of = [&](const std::string& name) {
    std::vector<Key> keys;
    if (std::shared_ptr<const NodeState> st = store_->read.snapshot().Node(name))
      for (const ProbeRow* r : st->newest_rows) keys.emplace_back(r->rail, r->dst, r->transport);
    return keys;
  };
  auto expect_newest_rows = [&](const std::string& name, size_t pairs, const std::string& step) {
    std::shared_ptr<const NodeState> st = store_->read.snapshot().Node(name);
    ASSERT_TRUE(st) << step;
    std::vector<const ProbeRow*> want;
    for (const auto& [key, entry] : st->pairs) want.push_back(entry.newest.get());
    auto order = [](const ProbeRow* a, const ProbeRow* b) {
      auto k = [](const ProbeRow* r) {
        return std::make_tuple(reinterpret_cast<uintptr_t>(r->rail), reinterpret_cast<uintptr_t>(r->dst),
                               reinterpret_cast<uintptr_t>(r->transport));
      };
      return k(a) < k(b);
    };
    std::sort(want.begin(), want.end(), order);
    EXPECT_EQ(st->newest_rows, want) << step;
    EXPECT_EQ(st->newest_rows.size(), pairs) << step;
  };
  json a = MakeReport("a-1", "node-a", kT0);
  for (const char* dst : {"node-b", "node-c", "node-d", "node-e"})
    for (const char* rail : {"0", "1"})
      for (const char* transport : {"rc", "ud"}) a["probes"].push_back(Probe(dst, kT0, 50.0, rail, 0, transport));
  Ingest(a);
  expect_newest_rows("node-a", 16, "first report");
  const std::vector<Key> first = keys_of("node-a");
  json b = MakeReport("a-2", "node-a", kT0 + 10000);
  b["probes"].push_back(Probe("node-e", kT0 + 10000, 70.0, "1", 0, "ud"));
  b["probes"].push_back(Probe("node-b", kT0 + 10000, 70.0, "0"));
  Ingest(b, kT0 + 10000);
  expect_newest_rows("node-a", 16, "a second report of some pairs");
  EXPECT_EQ(keys_of("node-a"), first) << "the same pairs, in the same order";
  std::shared_ptr<const NodeState> st = store_->read.snapshot().Node("node-a");
  for (const ProbeRow* r : st->newest_rows) {
    if (*r->dst == "node-b" && *r->rail == "0" && *r->transport == "rc") {
      EXPECT_EQ(r->rtt_p99, 70.0);
    }
  }
  json c = MakeReport("a-3", "node-a", kT0 + 20000);
  c["probes"].push_back(Probe("node-f", kT0 + 20000, 80.0, "0", 0, "ud"));
  Ingest(c, kT0 + 20000);
  expect_newest_rows("node-a", 17, "a third report, one pair new");
  json old = MakeReport("a-0", "node-a", kT0 - 10000);
  old["probes"].push_back(Probe("node-b", kT0 - 10000, 999.0, "0"));
  Ingest(old, kT0 + 21000);
  expect_newest_rows("node-a", 17, "a replayed older report");
  Reopen();
  expect_newest_rows("node-a", 17, "after a restart");
}

// Rails fold into one cell: the newest row of any rail, the lowest rail on a
// tie whatever order they arrive in; asked for one rail, that rail's newest.
// A refresh applies a commit's rows to a state without pairs, then merges the
// published pairs: every pair must end as applying the rows on top of them
// would leave it, ties (equal interval_end) going to the rows applied later.
TEST(NodeStateTest, MergingTheOlderPairsEqualsApplyingTheRowsOnTopOfThem) {
  std::mt19937 rng(7);
  const std::string* dsts[] = {Intern("node-b"), Intern("node-c")};
  const std::string* rails[] = {Intern("0"), nullptr};
  auto row = [&] {
    auto r = std::make_shared<ProbeRow>();
    r->src = Intern("node-a");
    r->dst = dsts[rng() % 2];  // the row gives back a hold: it takes one
    r->rail = rails[rng() % 2];
    HoldInterned(r->dst);
    HoldInterned(r->rail);
    r->transport = Intern("rc");
    r->interval_end = kT0 + static_cast<int64_t>(rng() % 4) * 1000;  // few values: many ties
    r->not_run = rng() % 3 == 0 ? Intern("no_path") : nullptr;
    return std::shared_ptr<const ProbeRow>(std::move(r));
  };
  for (int round = 0; round < 500; ++round) {
    NodeState published;
    for (int k = rng() % 6; k > 0; --k) published.Apply(row());
    std::vector<std::shared_ptr<const ProbeRow>> commit;
    for (int k = rng() % 6; k > 0; --k) commit.push_back(row());
    NodeState applied = published, merged;
    for (const auto& r : commit) applied.Apply(r), merged.Apply(r);
    merged.MergeOlder(published.pairs);
    ASSERT_EQ(merged.pairs.size(), applied.pairs.size()) << "round " << round;
    for (const auto& [key, want] : applied.pairs) {
      auto got = merged.pairs.find(key);
      ASSERT_NE(got, merged.pairs.end()) << "round " << round;
      EXPECT_EQ(got->second.newest.get(), want.newest.get()) << "round " << round;
      EXPECT_EQ(got->second.newest_run.get(), want.newest_run.get()) << "round " << round;
    }
  }
}

// Each rail's local port is the one its newest row names (rows without a
// rail or a local port say nothing of it): with port_leaves, a node's leaf
// per rail for the pinglists.
TEST(NodeStateTest, RailPortsAreTheNewestLocalPortOfEachRail) {
  auto row = [](const char* dst, const char* rail, const char* dev, int64_t port, int64_t end) {
    auto r = std::make_shared<ProbeRow>();
    r->src = Intern("node-a");
    r->dst = Intern(dst);
    r->rail = rail ? Intern(rail) : nullptr;
    r->local_device = dev ? Intern(dev) : nullptr;
    r->transport = Intern("rc");
    r->local_port = port;
    r->interval_end = end;
    return std::shared_ptr<const ProbeRow>(std::move(r));
  };
  NodeState st;
  st.Apply(row("node-b", "r0", "mlx5_0", 1, kT0));
  st.Apply(row("node-c", "r0", "mlx5_2", 1, kT0 + 1000));  // the rail moved to another port
  st.Apply(row("node-b", "r1", "mlx5_1", 1, kT0));
  st.Apply(row("node-c", "r1", nullptr, ProbeRow::kNullInt, kT0 + 5000));
  st.Apply(row("node-b", nullptr, "mlx5_3", 1, kT0));
  st.SummariseRailPorts();
  EXPECT_EQ(st.rail_ports, (std::map<std::string, std::string>{{"r0", "mlx5_2/1"}, {"r1", "mlx5_1/1"}}));
}

TEST_F(ReadSnapshotTest, MatrixCellIsTheNewestRailOrTheRailAskedFor) {
  json a = MakeReport("a-1", "node-a", kT0 + 10000);
  a["probes"].push_back(Probe("node-b", kT0, 70.0, "1"));
  a["probes"].push_back(Probe("node-b", kT0 + 10000, 50.0, "0"));
  a["probes"].push_back(Probe("node-c", kT0, 33.0, "2"));
  a["probes"].push_back(Probe("node-c", kT0, 31.0, "1"));
  Ingest(a, kT0 + 10000);
  json all = Matrix(0);
  ASSERT_EQ(all["rows"].size(), 2u);
  EXPECT_EQ(all["rows"][0][5], 50.0);  // node-b: rail 0, the newer
  EXPECT_EQ(all["rows"][1][5], 31.0);  // node-c: a tie, rail 1 before rail 2
  json one = Matrix(0, "1");
  ASSERT_EQ(one["rows"].size(), 2u);
  EXPECT_EQ(one["rows"][0][5], 70.0);
  EXPECT_EQ(one["rows"][1][5], 31.0);
  EXPECT_EQ(Matrix(0, "2")["rows"].size(), 1u);
  json recent = Matrix(kT0 + 1);
  ASSERT_EQ(recent["rows"].size(), 1u);
  EXPECT_EQ(recent["rows"][0][5], 50.0);
  EXPECT_TRUE(Matrix(kT0 + 1, "1")["rows"].empty());
}

// The matrix is written as text: rows in (src, dst, transport) order with
// node indexes, absent latencies as null, whole numbers as reals, the
// error map as an object, and max_rows honoured with "truncated".
TEST_F(ReadSnapshotTest, MatrixTextIsOrderedTypedAndTruncated) {
  json b = MakeReport("b-1", "node-b", kT0);
  b["probes"].push_back(MakeProbe("node-a", kT0, 0, 100, "ud", 70.0));
  b["probes"].push_back(MakeProbe("node-a", kT0, 3, 0, "rc"));  // every probe lost: no RTT
  Ingest(b);
  json a = MakeReport("a-1", "node-a", kT0);
  a["probes"].push_back(MakeProbe("node-c", kT0, 0, 100, "rc", 12.5));
  a["probes"].push_back(MakeProbe("node-b", kT0, 0, 100, "rc"));
  Ingest(a);

  json m = Matrix(0);
  ASSERT_EQ(m["rows"].size(), 4u);
  std::vector<std::string> names;
  for (const json& n : m["nodes"]) names.push_back(n["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  std::vector<std::string> order;
  for (const json& r : m["rows"])
    order.push_back(names[r[0].get<int>()] + ">" + names[r[1].get<int>()] + "/" + r[2].get<std::string>());
  EXPECT_EQ(order, (std::vector<std::string>{"node-a>node-b/rc", "node-a>node-c/rc", "node-b>node-a/rc",
                                             "node-b>node-a/ud"}));
  EXPECT_EQ(m["rows"][1][5], 12.5);
  EXPECT_TRUE(m["rows"][3][5].is_number_float());  // 70 is written 70.0
  EXPECT_EQ(m["rows"][3][5], 70.0);
  EXPECT_TRUE(m["rows"][2][4].is_null());  // all lost: no p50
  EXPECT_EQ(m["rows"][2][6], 1.0);
  EXPECT_EQ(m["rows"][2][7], 3);
  EXPECT_EQ(m["rows"][2][8], json({{"RETRY_EXC_ERR", 3}}));
  EXPECT_EQ(m["rows"][0][8], json::object());
  EXPECT_EQ(m["truncated"], false);
  EXPECT_EQ(m["since_ms"], 0);

  auto two = store_->read.Matrix(0, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two.value()["rows"].size(), 2u);
  EXPECT_EQ(two.value()["truncated"], true);
}

}  // namespace
}  // namespace rdmascope::collector
