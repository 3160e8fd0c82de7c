// RailSupervisor without RDMA hardware: a fixture sysfs tree whose devices
// cannot be opened (no verbs device here) gives rails that are "missing";
// their probes are reported as not run, never as loss, and nothing exits.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "agent/daemon/rail_supervisor.h"
#include "tests/support/scratch_dir.h"

namespace rdmascope::agent {
namespace {

const std::string kFixtures = RDMASCOPE_FIXTURES_DIR;

TEST(RailSupervisor, RailsOfAnAbsentDeviceAreNotRunNotLoss) {
  RailSupervisorOptions o;
  o.sysfs_root = kFixtures + "/sys/mlx5_ib";
  o.responder.control_port = 0;  // any free port
  o.interval_ms = 60000;
  std::atomic<int> asked{0};
  o.targets = [&asked](const std::string& rail) -> std::optional<std::vector<probes::ProbeTarget>> {
    ++asked;
    EXPECT_EQ(rail, "0");
    return std::vector<probes::ProbeTarget>{{"peer", "192.0.2.1", 18610}};
  };
  std::vector<std::string> log;
  o.log = [&log](const std::string& line) { log.push_back(line); };
  auto s = RailSupervisor::Start(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  nlohmann::json rails = (*s)->RailsJson();
  ASSERT_EQ(rails.size(), 1u) << rails.dump();
  EXPECT_EQ(rails[0]["name"], "0");
  EXPECT_EQ(rails[0]["device"], "mlx5_0");
  EXPECT_EQ(rails[0]["state"], "missing");
  EXPECT_GT(asked.load(), 0);
  std::vector<nlohmann::json> entries = (*s)->Collect();
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& e : entries) {
    EXPECT_EQ(e["rail"], "0");
    EXPECT_EQ(e["target"], "peer");
    EXPECT_EQ(e["not_run"], "local device missing");
    EXPECT_EQ(e["summary"]["sent"], 0);
    EXPECT_EQ(e["summary"]["lost"], 0);
  }
  (*s)->Stop();
}

// With a names file, a port is named as the file says (an earlier run's
// name), and a port named afresh is written to it.
TEST(RailSupervisor, RailNamesComeFromAndGoToTheNamesFile) {
  testsupport::ScratchDir dir("rail_sup_names");
  const std::string path = dir.path() + "/rail-names.json";
  std::ofstream(path) << R"({"rails": [{"name": "7", "device": "mlx5_0", "port": 1}]})";
  RailSupervisorOptions o;
  o.sysfs_root = kFixtures + "/sys/mlx5_ib";
  o.responder.control_port = 0;
  o.interval_ms = 60000;
  o.names_file = path;
  o.log = [](const std::string&) {};
  auto s = RailSupervisor::Start(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->RailNames(), std::vector<std::string>{"7"});
  (*s)->Stop();
  std::filesystem::remove(path);
  s = RailSupervisor::Start(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->RailNames(), std::vector<std::string>{"0"});
  (*s)->Stop();
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"mlx5_0\""), std::string::npos) << text;
}

TEST(RailSupervisor, NamedRailOnANodeWithoutDevices) {
  RailSupervisorOptions o;
  o.sysfs_root = kFixtures + "/sys/empty";
  o.responder.control_port = 0;
  o.rails = {{"r1", {"rxe1", 1}}};
  auto s = RailSupervisor::Start(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->RailNames(), std::vector<std::string>{"r1"});
  EXPECT_EQ((*s)->RailsJson()[0]["state"], "missing");
  EXPECT_TRUE((*s)->Collect().empty());  // no targets source: nothing to report
}

// A pinglist fetch that hangs (the collector is away) must not hold up the
// supervisor: a device that appears meanwhile gets its rail at once.
TEST(RailSupervisor, AHangingTargetFetchDoesNotHoldUpDeviceChanges) {
  using namespace std::chrono_literals;
  testsupport::ScratchDir sys("rail_supervisor_test");
  auto add_device = [&sys](const std::string& dev) {
    const std::string port = sys.path() + "/class/infiniband/" + dev + "/ports/1";
    std::filesystem::create_directories(port);
    std::ofstream(port + "/state") << "4: ACTIVE\n";
  };
  add_device("mlx5_0");
  RailSupervisorOptions o;
  o.sysfs_root = sys.path();
  o.responder.control_port = 0;
  o.interval_ms = 200;  // a fetch for the rail that is not ACTIVE every 200 ms
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> calls{0}, hanging{0};
  o.targets = [&](const std::string&) -> std::optional<std::vector<probes::ProbeTarget>> {
    if (calls++ > 0) {  // Start's own fetch answers; the later ones hang like a dead collector
      ++hanging;
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, 30s, [&] { return release; });
    }
    return std::vector<probes::ProbeTarget>{{"peer", "192.0.2.1", 18610}};
  };
  auto unblock = [&] {
    {
      std::lock_guard<std::mutex> lock(mu);
      release = true;
    }
    cv.notify_all();
  };
  auto s = RailSupervisor::Start(o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (hanging.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  ASSERT_GT(hanging.load(), 0) << "no second fetch in 10 s";
  add_device("mlx5_1");
  (*s)->Wake();
  size_t rails = 0;
  deadline = std::chrono::steady_clock::now() + 5s;
  while ((rails = (*s)->RailsJson().size()) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  const bool fetch_still_hanging = !release;
  unblock();
  EXPECT_EQ(rails, 2u) << "the new device's rail did not come while a fetch hung";
  EXPECT_TRUE(fetch_still_hanging);
  (*s)->Stop();
}

}  // namespace
}  // namespace rdmascope::agent
