// Names that only grow: one node token sends 100 reports of 4,096 new probe
// destination names each. With the default cap every report is refused (422);
// with the cap raised to 4,096 they are stored, the node's destinations in
// the snapshot stay at the cap, and once the node is silent past
// --forget-after-s the retention pass forgets it and memory comes back down.
// Prints one row per case: input, status, RSS before -> after, alive.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <thread>

#include "tests/collector/child_collector.h"
#include "tests/collector/hostile_support.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::ChildCollector;
using testing::MakeProbe;
using testing::MakeReport;
using testing::NowMs;
using testing::RssKb;

constexpr char kToken[] = "token-of-node-a-memory";
constexpr int kReports = 100, kNames = 4096;

// Report `round` of node-a: kNames probes, each to a name no report used before.
std::string NewNamesReport(int round, const json& probe_template) {
  const int64_t now = NowMs();
  json r = MakeReport("names-" + std::to_string(round), "node-a", now);
  json& probes = r["probes"] = json::array();
  for (int i = 0; i < kNames; ++i) {
    json p = probe_template;
    p["target"] = "r" + std::to_string(round) + "-destination-" + std::to_string(i) + ".example";
    p["interval_start_ms"] = now - 10000;
    p["interval_end_ms"] = now;
    probes.push_back(std::move(p));
  }
  return r.dump();
}

void PrintRow(const std::string& input, const std::string& status, long before, long after, bool alive,
              const std::string& extra) {
  std::printf("%-48s %-30s %8ld kB -> %8ld kB  alive=%s  %s\n", input.c_str(), status.c_str(), before, after,
              alive ? "yes" : "no", extra.c_str());
  std::fflush(stdout);
}

bool Alive(int port) {
  httplib::Client cli("127.0.0.1", port);
  auto h = cli.Get("/healthz");
  return h && h->status == 200;
}

// Posts reports [from, to); returns "CODE xN" per status code seen.
std::string PostRounds(int port, int from, int to, const json& probe_template) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(60, 0);
  cli.set_default_headers({{"Authorization", std::string("Bearer ") + kToken}});
  std::map<int, int> codes;
  // The next body is built while this one is posted: the collector still
  // gets one report after the other.
  auto build = [&](int round) { return std::async(std::launch::async, NewNamesReport, round, std::cref(probe_template)); };
  std::future<std::string> next = build(from);
  for (int round = from; round < to; ++round) {
    const std::string body = next.get();
    if (round + 1 < to) next = build(round + 1);
    auto res = cli.Post("/api/v1/reports", body, "application/json");
    ++codes[res ? res->status : -1];
  }
  std::string out;
  for (const auto& [code, n] : codes) out += (out.empty() ? "" : ", ") + std::to_string(code) + " x" + std::to_string(n);
  return out;
}

TEST(HostileMemory, NewDestinationNamesAreCappedAndForgotten) {
  testsupport::ScratchDir scratch("collector_hostile_memory_test");
  const std::string dir = scratch.path();
  std::ofstream(dir + "/tokens") << "node-a " << kToken << "\n";
  const json probe_template = MakeProbe("template", NowMs());

  {  // The default cap: a report naming more destinations than a node probes is refused whole.
    ChildCollector child;
    std::string why;
    const int port = child.Start(COLLECTOR_PATH, {"--db", dir + "/default.db", "--token-file", dir + "/tokens"},
                                 dir + "/default.log", 20000, &why);
    ASSERT_GT(port, 0) << why;
    const long before = RssKb(child.pid());
    const std::string status = PostRounds(port, 0, kReports, probe_template);
    const long after = RssKb(child.pid());
    const bool alive = Alive(port);
    PrintRow("100 reports x 4,096 new names (default cap)", status, before, after, alive, "refused: over the cap");
    EXPECT_EQ(status, "422 x100");
    EXPECT_TRUE(alive) << child.Log();
    // The bodies are parsed before the cap is checked: what the workers'
    // parsing took stays with the allocator, the same for 1 report or 100.
    EXPECT_LT(after - before, 256 * 1024);
    child.Stop(10000);
  }

  // The cap raised to the report's size: every report is stored; memory holds
  // at most 4,096 destinations of the node whatever the number of reports.
  ChildCollector child;
  std::string why;
  const int port = child.Start(COLLECTOR_PATH,
                               {"--db", dir + "/raised.db", "--token-file", dir + "/tokens",
                                "--max-destinations-per-node", "4096", "--forget-after-s", "3",
                                "--retention-interval-s", "1"},
                               dir + "/raised.log", 20000, &why);
  ASSERT_GT(port, 0) << why;
  const long start = RssKb(child.pid());
  const std::string first = PostRounds(port, 0, kReports / 2, probe_template);
  const long half = RssKb(child.pid());
  PrintRow("50 reports x 4,096 new names (cap 4,096)", first, start, half, Alive(port), "");
  const std::string second = PostRounds(port, kReports / 2, kReports, probe_template);
  const long full = RssKb(child.pid());
  PrintRow("50 more reports x 4,096 new names (cap 4,096)", second, half, full, Alive(port),
           "growth over the second 50: " + std::to_string(full - half) + " kB");
  EXPECT_EQ(first, "200 x50");
  EXPECT_EQ(second, "200 x50");

  // Silent from now on: the retention pass forgets the node and its names.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool forgotten = false;
  while (!forgotten && std::chrono::steady_clock::now() < deadline) {
    forgotten = child.Log().find("retention: forgot 1 nodes") != std::string::npos;
    if (!forgotten) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Then the window of the diagnosis and the rollups passes over the flood's
  // rows, and what they and the workers freed goes back to the system: RSS
  // comes down to the start plus what configuration bounds (the writer's
  // 64 MiB page cache, the readers' caches), whatever the flood was.
  constexpr long kSettledKb = 128 * 1024;
  long evicted = RssKb(child.pid());
  const auto settle_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (evicted - start >= kSettledKb && std::chrono::steady_clock::now() < settle_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    evicted = RssKb(child.pid());
  }
  const bool alive = Alive(port);
  PrintRow("the node silent past --forget-after-s 3", forgotten ? "forgotten" : "NOT forgotten in 60 s", full,
           evicted, alive, "RSS start " + std::to_string(start) + " kB, after eviction " + std::to_string(evicted) +
                               " kB (limit: start + " + std::to_string(kSettledKb) + " kB)");
  ASSERT_TRUE(forgotten) << child.Log();
  EXPECT_TRUE(alive) << child.Log();
  httplib::Client cli("127.0.0.1", port);
  auto nodes = cli.Get("/api/v1/nodes");
  ASSERT_TRUE(nodes && nodes->status == 200);
  EXPECT_EQ(json::parse(nodes->body)["nodes"].size(), 0u) << nodes->body;
  EXPECT_LT(evicted - start, kSettledKb) << "RSS did not come back after eviction";
  // During the flood RSS is printed, not held to a bound: a diagnosis pass
  // reads every path of its window, and a flood puts hundreds of thousands of
  // them there for a few seconds (seen: 30 to 450 MB over the second 50
  // reports, depending on whether a pass was running when RSS was read).
  child.Stop(10000);
}

}  // namespace
}  // namespace rdmascope::collector
