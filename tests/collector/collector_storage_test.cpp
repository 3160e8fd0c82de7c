// The collector daemon when its storage fails: a database that reaches
// --db-max-bytes (the same SQLite "full" as a full disk) answers reports 503
// with what to do, /healthz says why, the daemon stays up, no report is half
// written, and with room again it accepts them; a damaged database file stops
// the start with a message naming the file.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <string>

#include "tests/collector/child_collector.h"
#include "tests/support/run_command.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::ChildCollector;

constexpr char kToken[] = "storage-test-token";
constexpr int kProbesPerReport = 40;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

json Report(int n) {
  const int64_t t = NowMs();
  json r = testing::MakeReport("fill-" + std::to_string(n), "node-a", t);
  for (int k = 0; k < kProbesPerReport; ++k) r["probes"].push_back(testing::MakeProbe("peer-" + std::to_string(k), t, 0));
  return r;
}

int64_t QueryInt(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}

class StorageTest : public ::testing::Test {
 protected:
  testsupport::ScratchDir scratch_{"collector_storage_test"};
  void SetUp() override {
    dir_ = scratch_.path();
    std::ofstream(dir_ + "/tokens") << "* " << kToken << "\n";
  }
  int Start(ChildCollector* child, std::vector<std::string> extra, const std::string& log) {
    std::vector<std::string> args = {"--db", dir_ + "/c.db", "--token-file", dir_ + "/tokens"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string why;
    int port = child->Start(COLLECTOR_PATH, args, dir_ + "/" + log, 10000, &why);
    EXPECT_GT(port, 0) << why;
    return port;
  }
  std::string dir_;
};

TEST_F(StorageTest, AFullDatabaseAnswers503AndHealthzSaysWhyThenRecovers) {
  // The schema's own size, then a cap a few hundred reports above it.
  {
    ChildCollector probe;
    ASSERT_GT(Start(&probe, {}, "log0"), 0);
    probe.Stop(10000);
  }
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/c.db").c_str(), &st), 0);
  const int64_t cap = st.st_size + 256 * 1024;

  ChildCollector child;
  int port = Start(&child, {"--db-max-bytes", std::to_string(cap)}, "log1");
  ASSERT_GT(port, 0);
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(30, 0);
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  int acked = 0, refused_at = -1;
  std::shared_ptr<httplib::Response> refusal;
  for (int n = 0; n < 3000 && refused_at < 0; ++n) {
    auto res = cli.Post("/api/v1/reports", auth, Report(n).dump(), "application/json");
    ASSERT_TRUE(res) << "report " << n << ": " << httplib::to_string(res.error());
    if (res->status == 200) {
      ++acked;
    } else {
      refused_at = n;
      refusal = std::make_shared<httplib::Response>(*res);
    }
  }
  ASSERT_GE(refused_at, 0) << "no 503 after " << acked << " reports under a cap of " << cap << " bytes";
  ASSERT_GT(acked, 0);
  EXPECT_EQ(refusal->status, 503) << refusal->body;
  EXPECT_NE(refusal->body.find("collector storage full"), std::string::npos) << refusal->body;
  EXPECT_NE(refusal->body.find("--db-max-bytes"), std::string::npos) << refusal->body;
  EXPECT_EQ(refusal->get_header_value("Retry-After"), "30");

  auto health = cli.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 503);
  EXPECT_NE(health->body.find("storage full"), std::string::npos) << health->body;
  EXPECT_TRUE(child.Running()) << "the collector must stay up with a full database";
  auto nodes = cli.Get("/api/v1/nodes");
  ASSERT_TRUE(nodes);
  EXPECT_EQ(nodes->status, 200) << "reading still works when writing cannot";
  child.Stop(10000);
  EXPECT_EQ(child.exit_status(), 0);

  // Every acknowledged report whole, nothing of the refused one.
  const std::string db = dir_ + "/c.db";
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports"), acked);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM probe_summaries"), static_cast<int64_t>(acked) * kProbesPerReport);
  EXPECT_EQ(QueryInt(db, ("SELECT count(*) FROM reports WHERE id = 'fill-" + std::to_string(refused_at) + "'").c_str()),
            0);

  // Room again: the same report is taken and health is back.
  ChildCollector again;
  port = Start(&again, {}, "log2");
  ASSERT_GT(port, 0);
  httplib::Client cli2("127.0.0.1", port);
  cli2.set_read_timeout(30, 0);
  auto retry = cli2.Post("/api/v1/reports", auth, Report(refused_at).dump(), "application/json");
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->status, 200) << retry->body;
  auto healthy = cli2.Get("/healthz");
  ASSERT_TRUE(healthy);
  EXPECT_EQ(healthy->status, 200) << healthy->body;
  again.Stop(10000);
}

TEST_F(StorageTest, ADamagedDatabaseStopsTheStartNamingTheFile) {
  const std::string db = dir_ + "/damaged.db";
  std::ofstream(db) << std::string(16384, 'Z');
  auto r = testsupport::RunCommand(
      {COLLECTOR_PATH, "--listen", "127.0.0.1:0", "--db", db, "--token-file", dir_ + "/tokens"}, 30000);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is damaged"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".recover"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rdmascope::collector
