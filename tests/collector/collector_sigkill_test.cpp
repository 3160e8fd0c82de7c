// Crash safety: rdmascope-collector killed with SIGKILL while reports stream
// in loses no acknowledged report and keeps no half-written one; SIGTERM
// stops it cleanly with exit 0.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "tests/collector/child_collector.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::ChildCollector;
using testing::MakeProbe;
using testing::MakeReport;

constexpr int kProbesPerReport = 5;
constexpr char kToken[] = "sigkill-test-token";

class SigkillTest : public ::testing::Test {
 protected:
  testsupport::ScratchDir scratch_{"collector_sigkill_test"};
  void SetUp() override {
    dir_ = scratch_.path();
    std::ofstream(dir_ + "/tokens") << "* " << kToken << "\n";
  }
  std::vector<std::string> Args() const { return {"--db", dir_ + "/c.db", "--token-file", dir_ + "/tokens"}; }
  std::string dir_;
};

json Report(int poster, int n) {
  // On the collector's clock: a report far from it is repaired or refused (clock skew).
  const int64_t t = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();
  json r = MakeReport("p" + std::to_string(poster) + "-" + std::to_string(n), "node-" + std::to_string(poster), t);
  for (int k = 0; k < kProbesPerReport; ++k) r["probes"].push_back(MakeProbe("peer-" + std::to_string(k), t, k % 2));
  return r;
}

TEST_F(SigkillTest, EveryAcknowledgedReportSurvivesKill9) {
  ChildCollector child;
  std::string why;
  int port = child.Start(COLLECTOR_PATH, Args(), dir_ + "/log1", 10000, &why);
  ASSERT_GT(port, 0) << why;

  std::mutex mu;
  std::condition_variable cv;
  std::set<std::string> acked;
  std::atomic<bool> stop{false};
  std::vector<std::thread> posters;
  for (int p = 0; p < 3; ++p) {
    posters.emplace_back([&, p] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_connection_timeout(1, 0);
      cli.set_read_timeout(2, 0);
      for (int n = 0; !stop && n < 100000; ++n) {
        json r = Report(p, n);
        auto res = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kToken}}, r.dump(),
                            "application/json");
        if (!res) break;  // the collector is gone
        if (res->status == 200) {
          std::lock_guard<std::mutex> lock(mu);
          acked.insert(r["report_id"].get<std::string>());
          cv.notify_all();
        }
      }
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    bool enough = cv.wait_for(lock, std::chrono::seconds(30), [&] { return acked.size() >= 150; });
    ASSERT_TRUE(enough) << "only " << acked.size() << " reports acknowledged in 30 s; log:\n" << child.Log();
  }
  child.Kill(SIGKILL);  // posters are mid-request
  stop = true;
  for (std::thread& t : posters) t.join();
  ASSERT_TRUE(WIFSIGNALED(child.exit_status()));

  // Restart on the same database: it must open (WAL recovery) and serve.
  ChildCollector again;
  int port2 = again.Start(COLLECTOR_PATH, Args(), dir_ + "/log2", 10000, &why);
  ASSERT_GT(port2, 0) << why;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((dir_ + "/c.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  std::set<std::string> stored;
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT id FROM reports", -1, &s, nullptr), SQLITE_OK);
  while (sqlite3_step(s) == SQLITE_ROW) stored.insert(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  sqlite3_finalize(s);
  size_t missing = 0;
  for (const std::string& id : acked)
    if (!stored.count(id)) {
      ++missing;
      ADD_FAILURE() << "acknowledged report " << id << " is not in the database";
    }
  EXPECT_EQ(missing, 0u) << acked.size() << " acknowledged, " << stored.size() << " stored";
  EXPECT_GE(stored.size(), acked.size());
  std::printf("SIGKILL mid-ingest: %zu reports acknowledged, %zu stored after the restart, %zu missing\n",
              acked.size(), stored.size(), missing);

  // All or nothing: every stored report has all of its probe summaries.
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT r.id, (SELECT COUNT(*) FROM probe_summaries p WHERE p.report_id = r.id) "
                               "FROM reports r",
                               -1, &s, nullptr),
            SQLITE_OK);
  while (sqlite3_step(s) == SQLITE_ROW)
    EXPECT_EQ(sqlite3_column_int(s, 1), kProbesPerReport) << reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "ok");
  sqlite3_finalize(s);
  sqlite3_close(db);

  // A replay of an acknowledged report after the restart is a duplicate.
  httplib::Client cli("127.0.0.1", port2);
  auto dup = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kToken}},
                      Report(0, 0).dump(), "application/json");
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->status, 200);
  EXPECT_EQ(json::parse(dup->body)["duplicate"], true);

  again.Kill(SIGTERM);
  ASSERT_TRUE(WIFEXITED(again.exit_status())) << again.Log();
  EXPECT_EQ(WEXITSTATUS(again.exit_status()), 0) << again.Log();
  EXPECT_NE(again.Log().find("stopped"), std::string::npos) << again.Log();
}

TEST_F(SigkillTest, RefusesToStartWithoutTokenFile) {
  ChildCollector child;
  std::string why;
  int port = child.Start(COLLECTOR_PATH, {"--db", dir_ + "/c.db"}, dir_ + "/log", 5000, &why);
  EXPECT_EQ(port, -1);
  EXPECT_NE(why.find("--token-file"), std::string::npos) << why;
  EXPECT_NE(why.find("--no-auth"), std::string::npos) << why;
}

}  // namespace
}  // namespace rdmascope::collector
