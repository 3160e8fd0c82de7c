// Token roles against the collector daemon, as a process (part of
// collector_hostile_input_test): a node token may write only its own node's
// facts. Each case is refused with 403 naming the role or rule, stores
// nothing, and the collector stays up; a malformed token file stops it at
// start naming FILE:LINE. One row per case: input, status, RSS before ->
// after, alive, rows stored.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "tests/collector/child_collector.h"
#include "tests/collector/hostile_support.h"
#include "tests/support/run_command.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using testing::CountRows;
using testing::NowMs;
using testing::RssKb;
using nlohmann::json;
using testing::ChildCollector;
using testing::MakeReport;
using testing::MakeSweep;

constexpr char kNodeA[] = "token-of-node-a-123";
constexpr char kSweepS[] = "token-sweeper-s-789";

void Row(const std::string& name, const std::string& status, long before, long after, bool alive,
         const std::string& extra) {
  std::printf("%-48s %-30s %8ld kB -> %8ld kB  alive=%s  %s\n", name.c_str(), status.substr(0, 30).c_str(), before,
              after, alive ? "yes" : "no", extra.c_str());
}

TEST(HostileInput, TokenRolesANodeTokenWritesOnlyItsOwnNodesFacts) {
  testsupport::ScratchDir scratch("collector_hostile_roles");
  const std::string dir = scratch.path();
  std::ofstream(dir + "/tokens") << "node-a " << kNodeA << "\nsweep node-s " << kSweepS << "\n";
  ChildCollector child;
  std::string why;
  const int port =
      child.Start(COLLECTOR_PATH, {"--db", dir + "/c.db", "--token-file", dir + "/tokens"}, dir + "/log", 20000, &why);
  ASSERT_GT(port, 0) << why;
  httplib::Client cli("127.0.0.1", port);
  auto stored_rows = [&] {
    int64_t n = 0;
    for (const char* t : {"reports", "nodes", "probe_summaries", "fabric_nodes"}) n += CountRows(dir + "/c.db", t);
    return n;
  };
  auto alive = [&] {
    auto h = cli.Get("/healthz");
    return h && h->status == 200;
  };
  auto status_of = [](const httplib::Result& r) {
    if (!r) return std::string("no answer");
    std::string error;
    try {
      error = json::parse(r->body).value("error", "");
    } catch (const std::exception&) {
    }
    return std::to_string(r->status) + " " + error;
  };

  json sweep = MakeReport("roles-sweep-1", "node-a", NowMs());
  sweep["fabric"] = MakeSweep("0x00000000000000aa", "leaf-renamed-by-a-node");
  json foreign = MakeReport("roles-host-1", "node-a", NowMs());
  foreign["labels"]["control_host"] = "192.0.2.77";  // not node-a's: no GID, not the peer address
  json named = MakeReport("roles-host-2", "node-a", NowMs());
  named["labels"]["control_host"] = "victim.example";
  struct Case {
    std::string name;
    std::function<httplib::Result()> send;
  };
  auto post = [&](const json& r) {
    return [&cli, body = r.dump()] {
      return cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kNodeA}}, body,
                      "application/json");
    };
  };
  const Case cases[] = {
      {"node token posting a fabric sweep", post(sweep)},
      {"node token, foreign control_host 192.0.2.77", post(foreign)},
      {"node token, control_host a host name", post(named)},
      {"node token reading node-b's pinglist",
       [&] {
         return cli.Get("/api/v1/pinglist?node=node-b", {{"Authorization", std::string("Bearer ") + kNodeA}});
       }},
  };
  for (const Case& c : cases) {
    const long before = RssKb(child.pid());
    auto res = c.send();
    const long after = RssKb(child.pid());
    const bool up = alive();
    const int64_t rows = stored_rows();
    Row(c.name, status_of(res), before, after, up, "rows stored: " + std::to_string(rows));
    ASSERT_TRUE(res) << c.name;
    EXPECT_EQ(res->status, 403) << c.name << ": " << res->body;
    EXPECT_EQ(rows, 0) << c.name;
    EXPECT_TRUE(up) << c.name << "; log:\n" << child.Log();
  }
  {  // the role that allows it: the sweep token's own sweep is stored
    json own = MakeReport("roles-sweep-2", "node-s", NowMs());
    own["fabric"] = MakeSweep("0x00000000000000aa", "leaf-1");
    const long before = RssKb(child.pid());
    auto res = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kSweepS}}, own.dump(),
                        "application/json");
    const long after = RssKb(child.pid());
    const int64_t switches = CountRows(dir + "/c.db", "fabric_nodes");
    Row("sweep token posting its node's sweep", status_of(res), before, after, alive(),
        "fabric nodes stored: " + std::to_string(switches));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(switches, 1);
  }
  child.Stop(10000);

  // A one-word token-file line (once a silent fleet token) stops the collector.
  std::ofstream(dir + "/one-word.tokens") << "node-a " << kNodeA << "\nlonely-fleet-token-1\n";
  auto r = testsupport::RunCommand(
      {COLLECTOR_PATH, "--listen", "127.0.0.1:0", "--db", dir + "/c2.db", "--token-file", dir + "/one-word.tokens"},
      30000);
  const std::string first_line = r.err.substr(0, r.err.find('\n'));
  Row("token file with a one-word line", "exit " + std::to_string(r.exit_code), 0, 0, false, first_line);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(dir + "/one-word.tokens:2: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`* TOKEN`"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rdmascope::collector
