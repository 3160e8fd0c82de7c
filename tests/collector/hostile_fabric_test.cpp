// InfiniBand parts of a report without the members the collector keys them
// by, against the collector daemon as a process (part of
// collector_hostile_input_test). The suite's main build uses the Debian
// package's flags (no NDEBUG: the JSON library's assertions are live), where
// one such report used to abort the collector. Each is a 400 naming the
// field, nothing is stored, and the collector stays up.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <string>

#include "tests/collector/child_collector.h"
#include "tests/collector/hostile_support.h"
#include "tests/collector/test_reports.h"
#include "tests/support/scratch_dir.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::ChildCollector;
using testing::CountRows;
using testing::MakeReport;
using testing::MakeSweep;
using testing::NowMs;
using testing::PrintCase;
using testing::RssKb;

constexpr char kSweeper[] = "token-of-sweeper-s-1234";

TEST(HostileInput, FabricPartsWithoutGuidAre400AndTheCollectorStaysUp) {
  testsupport::ScratchDir scratch("collector_hostile_fabric");
  const std::string dir = scratch.path();
  std::ofstream(dir + "/tokens") << "sweep node-s " << kSweeper << "\n";
  ChildCollector child;
  std::string why;
  const int port =
      child.Start(COLLECTOR_PATH, {"--db", dir + "/c.db", "--token-file", dir + "/tokens"}, dir + "/log", 20000, &why);
  ASSERT_GT(port, 0) << why;
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(10, 0);

  json neighbour = MakeReport("no-guid-1", "node-s", NowMs());
  neighbour["neighbours"] = json::array({{{"device", "mlx5_0"},
                                          {"local_port", 1},
                                          {"type", "Switch"},
                                          {"description", "leaf07"},
                                          {"port", {{"port", 17}, {"state", "ACTIVE"}}}}});
  json node = MakeReport("no-guid-2", "node-s", NowMs());
  node["fabric"] = MakeSweep("0x00000000000000aa", "leaf-1");
  node["fabric"]["nodes"][0].erase("guid");
  json remote = MakeReport("no-guid-3", "node-s", NowMs());
  remote["fabric"] = MakeSweep("0x00000000000000aa", "leaf-1");
  remote["fabric"]["nodes"][0]["ports"][0]["remote"] = {{"port", 3}};

  struct Case {
    const char* name;
    const json& report;
    const char* field;
  };
  for (const Case& c : {Case{"a neighbour without guid", neighbour, "/neighbours/0"},
                        Case{"a fabric node without guid", node, "/fabric/nodes/0"},
                        Case{"a fabric port's remote without guid", remote, "/fabric/nodes/0/ports/0/remote"}}) {
    const long before = RssKb(child.pid());
    auto res = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kSweeper}}, c.report.dump(),
                        "application/json");
    const long after = RssKb(child.pid());
    auto health = cli.Get("/healthz");
    const bool alive = health && health->status == 200;
    const int64_t rows = CountRows(dir + "/c.db", "reports") + CountRows(dir + "/c.db", "fabric_nodes") +
                         CountRows(dir + "/c.db", "node_neighbours");
    const std::string status = res ? "HTTP " + std::to_string(res->status) : "no answer";
    PrintCase(c.name, status, before, after, alive, "rows stored: " + std::to_string(rows) +
                                                         (res ? "; " + res->body.substr(0, 120) : ""));
    ASSERT_TRUE(res) << c.name << ": no answer; log:\n" << child.Log();
    EXPECT_EQ(res->status, 400) << res->body;
    EXPECT_NE(res->body.find(c.field), std::string::npos) << "the answer should name " << c.field << ": " << res->body;
    EXPECT_TRUE(alive) << "collector down after " << c.name << "; log:\n" << child.Log();
    EXPECT_EQ(rows, 0);
  }
  child.Stop(10000);
}

}  // namespace
}  // namespace rdmascope::collector
