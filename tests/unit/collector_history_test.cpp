// History queries: read-only connections outside the store lock, stopped at
// their deadline. Built once per backend (tests/collector/store_backend.h).
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>

#include "collector/store/history_reader.h"
#include "collector/store/storage.h"
#include "tests/collector/store_backend.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;

constexpr int64_t kT0 = 1700000000000;

std::unique_ptr<Storage> OpenStore(testing::TestStoreDatabase& db, int64_t deadline_ms) {
  StoreOptions o;
  o.synchronous_full = false;
  o.query_deadline_ms = deadline_ms;
  auto s = db.Open(o, kT0);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(HistoryReader, AQueryPastItsDeadlineIsStoppedAndSaysSo) {
  testing::TestStoreDatabase db("collector_history_test");
  auto store = OpenStore(db, 200);
  ASSERT_TRUE(store);
  const auto start = std::chrono::steady_clock::now();
  // Counts to ten billion: minutes of work unless something stops it.
  auto r = store->db.History([](SqlConn& db) -> Result<json> {
    auto q = db.Q("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) "
                        "SELECT COUNT(*) FROM c");
    if (!q.ok()) return q.status();
    auto row = q.value()->Step();
    if (!row.ok()) return row.status();
    return json(q.value()->Int(0));
  });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind(kHistoryDeadlineError, 0), 0u) << r.status().message();
  EXPECT_LT(s, 5.0);
  // The connection goes back to the pool and answers the next query.
  auto next = store->db.History([](SqlConn& db) -> Result<json> {
    auto q = db.Q("SELECT COUNT(*) FROM probe_summaries");
    if (!q.ok()) return q.status();
    auto row = q.value()->Step();
    if (!row.ok()) return row.status();
    return json(q.value()->Int(0));
  });
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next.value(), 0);
}

TEST(HistoryReader, HistoryIsReadWhileAReportIsBeingStored) {
  testing::TestStoreDatabase db("collector_history_test");
  auto store = OpenStore(db, 5000);
  ASSERT_TRUE(store);
  json first = MakeReport("r-1", "node-a", kT0);
  first["probes"].push_back(MakeProbe("node-b", kT0));
  ASSERT_TRUE(store->writer.Ingest(first, kT0).ok());

  // While the next report holds the store (inside its ingest), a history
  // query from another thread answers with what was committed before it.
  // (The future outlives the hook: a query that does wait for the lock
  // finishes after the ingest instead of deadlocking the test.)
  bool answered_during_ingest = false;
  json seen;
  std::future<Result<json>> query;
  store->db.SetIngestFaultHook([&](const std::string& step) {
    if (step != "probe" || query.valid()) return Status::Ok();
    query = std::async(std::launch::async, [&] {
      return store->history.Probes(std::string("node-a"), std::nullopt, 0, kT0 + 60000, 100);
    });
    if (query.wait_for(std::chrono::seconds(10)) == std::future_status::ready) {
      auto r = query.get();
      answered_during_ingest = r.ok();
      if (r.ok()) seen = r.value();
    }
    return Status::Ok();
  });
  json second = MakeReport("r-2", "node-a", kT0 + 10000);
  second["probes"].push_back(MakeProbe("node-b", kT0 + 10000));
  ASSERT_TRUE(store->writer.Ingest(second, kT0 + 10000).ok());
  store->db.SetIngestFaultHook(nullptr);
  if (query.valid()) query.wait();
  EXPECT_TRUE(answered_during_ingest) << "the query waited for the store lock";
  EXPECT_EQ(seen["probes"].size(), 1u) << "only the committed report is visible";
  auto after = store->history.Probes(std::string("node-a"), std::nullopt, 0, kT0 + 60000, 100);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after.value()["probes"].size(), 2u);
}

}  // namespace
}  // namespace rdmascope::collector
