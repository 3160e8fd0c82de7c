// What readers get from an in-process collector: lists cut at their limit and
// saying so, failures that name what failed but no SQL, exception text or
// path, /healthz as ok / not ok, and bodies never compressed with brotli
// (/metrics gzip at level 1 at most).
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collector/http/http_body.h"
#include "tests/support/test_reports.h"
#include "tests/collector/test_server.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::kTestToken;
using testing::MakeReport;
using testing::TestCollector;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Logged {
  std::mutex mu;
  std::vector<std::string> lines;
  std::string All() {
    std::lock_guard<std::mutex> lock(mu);
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }
};

class ReadsTest : public ::testing::Test {
 protected:
  static ApiOptions Options(const std::shared_ptr<Logged>& logged) {
    ApiOptions o;
    o.log = [logged](const std::string& line) {
      std::lock_guard<std::mutex> lock(logged->mu);
      logged->lines.push_back(line);
    };
    return o;
  }
  std::shared_ptr<Logged> logged_ = std::make_shared<Logged>();
  TestCollector c_{Options(logged_)};
  httplib::Client cli_{"127.0.0.1", c_.port()};

  void Report(const std::string& id, const std::string& node) {
    auto r = cli_.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kTestToken}},
                       MakeReport(id, node, NowMs()).dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  // Runs sql on a connection of its own to the collector's database.
  void Exec(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(c_.sqlite_file().c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }
};

TEST_F(ReadsTest, ListsStopAtTheirLimitAndSaySo) {
  Report("a-1", "node-a");
  Report("b-1", "node-b");
  auto all = json::parse(cli_.Get("/api/v1/nodes")->body);
  EXPECT_EQ(all["nodes"].size(), 2u);
  EXPECT_EQ(all["truncated"], false);
  auto one = json::parse(cli_.Get("/api/v1/nodes?limit=1")->body);
  ASSERT_EQ(one["nodes"].size(), 1u);
  EXPECT_EQ(one["nodes"][0]["name"], "node-a");
  EXPECT_EQ(one["truncated"], true);
  auto ports = json::parse(cli_.Get("/api/v1/ports?limit=1")->body);
  EXPECT_EQ(ports["ports"].size(), 1u);
  EXPECT_EQ(ports["truncated"], true);
  for (const char* path : {"/api/v1/nodes?limit=0", "/api/v1/ports?limit=100001", "/api/v1/fabric/nodes?limit=x",
                           "/api/v1/fabric/links?limit=-1", "/api/v1/fabric/errors?limit=0",
                           "/api/v1/fabric/neighbours?limit=200000"}) {
    auto r = cli_.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 400) << path;
    EXPECT_EQ(json::parse(r->body)["detail"]["param"], "limit") << path;
  }
  for (const char* path : {"/api/v1/fabric/nodes", "/api/v1/fabric/links", "/api/v1/fabric/errors",
                           "/api/v1/fabric/neighbours", "/api/v1/diagnoses", "/api/v1/nodes/node-a"}) {
    auto r = cli_.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path << ": " << r->body;
  }
}

TEST_F(ReadsTest, AFailedReadNamesWhatFailedAndTheLogKeepsTheCause) {
  Report("a-1", "node-a");
  Exec("ALTER TABLE diagnoses RENAME TO diagnoses_gone");
  auto r = cli_.Get("/api/v1/diagnoses");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  json body = json::parse(r->body);
  EXPECT_EQ(body["error"], "store query failed");
  EXPECT_NE(body["detail"].get<std::string>().find("diagnoses"), std::string::npos) << r->body;
  for (const char* leak : {"no such table", "SELECT", "sqlite", ".db", "/"})
    EXPECT_EQ(r->body.find(leak), std::string::npos) << "the answer carries \"" << leak << "\": " << r->body;
  EXPECT_NE(logged_->All().find("no such table: diagnoses"), std::string::npos) << logged_->All();
}

TEST_F(ReadsTest, HealthSaysOkOrNotOkWithoutPaths) {
  auto ok = cli_.Get("/healthz");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(json::parse(ok->body), (json{{"ok", true}}));
  // The database gone from under the collector: not ok, and no path or SQLite text.
  Exec("DROP TABLE schema_version");
  auto bad = cli_.Get("/healthz");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 503);
  json body = json::parse(bad->body);
  EXPECT_EQ(body["ok"], false);
  EXPECT_EQ(body["error"], "database unavailable");
  EXPECT_EQ(bad->body.find(c_.dir()), std::string::npos) << bad->body;
  EXPECT_EQ(bad->body.find("no such table"), std::string::npos) << bad->body;
  EXPECT_NE(logged_->All().find("no such table: schema_version"), std::string::npos) << logged_->All();
}

TEST_F(ReadsTest, NothingIsBrotliAndMetricsIsGzipAtTheFastestLevel) {
  Report("a-1", "node-a");
  cli_.set_decompress(false);
  for (const char* path : {"/metrics", "/", "/js/app.js", "/api/v1/nodes"}) {
    auto r = cli_.Get(path, {{"Accept-Encoding", "br"}});
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->get_header_value("Content-Encoding"), "") << path;
  }
  auto gz = cli_.Get("/metrics", {{"Accept-Encoding", "br, gzip"}});
  ASSERT_TRUE(gz);
  EXPECT_EQ(gz->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(gz->get_header_value("Vary"), "Accept-Encoding");
  ASSERT_GT(gz->body.size(), 10u);
  EXPECT_EQ(static_cast<unsigned char>(gz->body[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz->body[8]), 4) << "XFL 4: compressed at the fastest level";
  auto refused = cli_.Get("/metrics", {{"Accept-Encoding", "gzip;q=0"}});
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->get_header_value("Content-Encoding"), "");
  EXPECT_NE(refused->body.find("rdmascope_node_last_report_timestamp_seconds"), std::string::npos);
}

TEST(HttpBody, AcceptsGzipReadsTheTokensAndTheirWeights) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("br, GZIP"));
  EXPECT_TRUE(AcceptsGzip("deflate, x-gzip;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("gzip;q=0.001"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("br"));
  EXPECT_FALSE(AcceptsGzip("gzipped"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("br, gzip; q=0.000"));
  auto gz = GzipFast(std::string(100000, 'a'));
  ASSERT_TRUE(gz);
  EXPECT_LT(gz->size(), 1000u);
}

}  // namespace
}  // namespace rdmascope::collector
