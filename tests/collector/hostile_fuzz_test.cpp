// Hostile input, InfiniBand sections: a neighbour, a fabric node and a port
// remote without "guid" each get 400 naming the field, and the collector (the
// binary as built, with assertions as the package build has them) stays up.
// One row per case: input, status, RSS before -> after, alive, the field.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/collector/child_collector.h"
#include "tests/collector/hostile_support.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;

constexpr char kToken[] = "token-of-node-f-789";

json Neighbour() {
  return {{"device", "mlx5_0"}, {"local_port", 1}, {"guid", "0x0000000000000201"}, {"type", "Switch"},
          {"description", "sw2"}, {"port", {{"port", 3}, {"counters", json::object()}}}};
}

json SweepNode(const std::string& guid, const json& remote) {
  return {{"guid", guid},
          {"type", "Switch"},
          {"description", "sw1"},
          {"num_ports", 36},
          {"ports", json::array({{{"port", 1}, {"state", "Active"}, {"remote", remote}}})}};
}

TEST(HostileInput, FabricSectionsWithoutGuidAre400NamingTheField) {
  testsupport::ScratchDir scratch("collector_hostile_fuzz");
  const std::string dir = scratch.path();
  std::ofstream(dir + "/tokens") << "* " << kToken << "\n";
  testing::ChildCollector child;
  std::string why;
  const int port = child.Start(COLLECTOR_PATH, {"--db", dir + "/c.db", "--token-file", dir + "/tokens"},
                               dir + "/log", 20000, &why);
  ASSERT_GT(port, 0) << why;

  json no_guid_neighbour = Neighbour();
  no_guid_neighbour.erase("guid");
  json no_guid_node = SweepNode("0x0000000000000200", {{"guid", "0x0000000000000201"}, {"port", 3}});
  no_guid_node.erase("guid");
  json no_guid_remote = SweepNode("0x0000000000000200", {{"port", 3}});
  struct Case {
    const char* name;
    const char* section;
    json value;
    const char* field;
  };
  const Case cases[] = {
      {"neighbour without guid", "neighbours", json::array({no_guid_neighbour}), "/neighbours/0/guid"},
      {"fabric node without guid", "fabric", {{"nodes", json::array({no_guid_node})}}, "/fabric/nodes/0/guid"},
      {"port remote without guid", "fabric", {{"nodes", json::array({no_guid_remote})}},
       "/fabric/nodes/0/ports/0/remote/guid"},
  };
  httplib::Client cli("127.0.0.1", port);
  cli.set_bearer_token_auth(kToken);
  int n = 0;
  for (const Case& c : cases) {
    json report = testing::MakeReport("guid-" + std::to_string(++n), "node-f", testing::NowMs());
    report[c.section] = c.value;
    const long before = testing::RssKb(child.pid());
    auto res = cli.Post("/api/v1/reports", report.dump(), "application/json");
    const std::string status = res ? std::to_string(res->status) : "no answer";
    std::string field;
    if (res) {
      json body = json::parse(res->body, nullptr, false);
      if (body.is_object() && body.contains("detail") && body["detail"].is_object() &&
          body["detail"].contains("field") && body["detail"]["field"].is_string())
        field = body["detail"]["field"].get<std::string>();
    }
    auto health = cli.Get("/healthz");
    const bool alive = child.Running() && health && health->status == 200;
    const long after = testing::RssKb(child.pid());
    std::printf("%-48s %-30s %8ld kB -> %8ld kB  alive=%s  %s\n", c.name, status.c_str(), before, after,
                alive ? "yes" : "no", ("field " + field).c_str());
    EXPECT_EQ(status, "400") << c.name;
    EXPECT_EQ(field, c.field) << c.name << ": " << (res ? res->body : "");
    ASSERT_TRUE(alive) << "collector down after " << c.name << "; log:\n" << child.Log();
  }
  child.Stop(10000);
}

}  // namespace
}  // namespace rdmascope::collector
