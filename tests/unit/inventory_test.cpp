// Inventory against the fixture trees in tests/fixtures/sys, compared with the
// hand-written goldens in tests/fixtures/expected; plus the verbs enrichment
// through a fake source and the reader's three outcomes.
#include "agent/node/inventory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "agent/node/attr_reader.h"
#include "agent/node/counters.h"
#include "common/model_json.h"
#include "tests/support/scratch_dir.h"

namespace rdmascope {
namespace {

const std::string kFixtures = RDMASCOPE_FIXTURES_DIR;

nlohmann::json Load(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

Inventory Read(const std::string& fixture, bool counters) {
  SysfsReader fs(kFixtures + "/sys/" + fixture);
  InventoryOptions o;
  o.read_counters = counters;
  return ReadInventory(fs, o);
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, PortsMatchExpected) {
  nlohmann::json want = Load(kFixtures + "/expected/" + GetParam() + ".ports.json");
  nlohmann::json got = InventoryToJson(Read(GetParam(), false));
  EXPECT_EQ(got, want) << "got:\n" << got.dump(2);
}

TEST_P(Golden, CountersMatchExpected) {
  nlohmann::json want = Load(kFixtures + "/expected/" + GetParam() + ".counters.json");
  nlohmann::json got = InventoryCountersToJson(Read(GetParam(), true));
  EXPECT_EQ(got, want) << "got:\n" << got.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Golden,
                         ::testing::Values("mlx5_roce", "mlx5_ib", "mlx5_ib_errors", "mlx4_nopma", "rxe"));

TEST(Inventory, NoClassDirectoryIsEmptyAndQuiet) {
  Inventory inv = Read("empty", true);
  EXPECT_TRUE(inv.devices.empty());
  EXPECT_TRUE(inv.warnings.empty());
  Inventory none = ReadInventory(SysfsReader("/nonexistent/root"), {});
  EXPECT_TRUE(none.devices.empty());
}

class FakeVerbs : public VerbsInfoSource {
 public:
  std::vector<std::string> ListDevices() override { return {"mlx5_0", "ghost0"}; }
  Result<VerbsDeviceInfo> Query(const std::string& device) override {
    ++queries;
    if (fail) return Result<VerbsDeviceInfo>::Error("ibv_open_device(" + device + "): Permission denied (errno 13)");
    VerbsDeviceInfo info;
    info.caps.max_qp = 1000;
    info.ports.push_back({1, 1024, 4096});
    return info;
  }
  bool fail = false;
  int queries = 0;
};

TEST(Inventory, VerbsEnrichesMatchingDeviceOnly) {
  FakeVerbs verbs;
  InventoryOptions o;
  o.verbs = &verbs;
  Inventory inv = ReadInventory(SysfsReader(kFixtures + "/sys/mlx5_roce"), o);
  ASSERT_EQ(inv.devices.size(), 1u);
  EXPECT_EQ(verbs.queries, 1);  // ghost0 has no sysfs entry: not queried
  ASSERT_TRUE(inv.devices[0].verbs);
  EXPECT_EQ(inv.devices[0].verbs->max_qp, 1000);
  EXPECT_EQ(inv.devices[0].ports[0].active_mtu, 1024u);
  EXPECT_EQ(inv.devices[0].ports[0].max_mtu, 4096u);
  EXPECT_FALSE(inv.devices[0].ports[1].active_mtu);  // verbs said nothing of port 2
}

TEST(Inventory, FailedVerbsQueryIsAWarningNotAnError) {
  FakeVerbs verbs;
  verbs.fail = true;
  InventoryOptions o;
  o.verbs = &verbs;
  Inventory inv = ReadInventory(SysfsReader(kFixtures + "/sys/mlx5_roce"), o);
  ASSERT_EQ(inv.devices.size(), 1u);
  EXPECT_FALSE(inv.devices[0].verbs);
  ASSERT_EQ(inv.warnings.size(), 1u);
  EXPECT_NE(inv.warnings[0].find("ibv_open_device(mlx5_0)"), std::string::npos);
  EXPECT_TRUE(inv.devices[0].ports[0].state);  // sysfs values still there
}

TEST(SysfsReader, AbsentDanglingDirectoryAndGood) {
  testsupport::ScratchDir scratch("rdmascope-sysfs");
  const std::string root = scratch.path();
  std::ofstream(root + "/good") << "4: ACTIVE\n";
  ASSERT_EQ(::mkdir((root + "/dir").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("nowhere", (root + "/dangling").c_str()), 0);
  SysfsReader fs(root + "/");
  auto good = fs.ReadAttr("good");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(**good, "4: ACTIVE");
  auto absent = fs.ReadAttr("absent");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(*absent);
  auto dir = fs.ReadAttr("dir");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find(root + "/dir"), std::string::npos);
  auto dangling = fs.ReadAttr("dangling");
  ASSERT_FALSE(dangling.ok());
  EXPECT_NE(dangling.status().message().find("dangling"), std::string::npos);
}

// The instance identity: node GUID and the inode of the device's directory
// (through the class link, as sysfs has it); a device re-created (its
// directory new) is a new instance; absent GUID is "", not a number.
TEST(Inventory, DeviceInstanceChangesWhenTheDeviceIsRecreated) {
  testsupport::ScratchDir scratch("rdmascope-sysfs");
  const std::string root = scratch.path();
  std::filesystem::create_directories(root + "/devices/virtual/infiniband/dev0");
  std::filesystem::create_directories(root + "/devices/virtual/infiniband/dev1");
  std::filesystem::create_directories(root + "/class/infiniband");
  std::ofstream(root + "/devices/virtual/infiniband/dev0/node_guid") << "0002:c903:0001:2345\n";
  for (const char* d : {"dev0", "dev1"})
    ASSERT_EQ(::symlink((std::string("../../devices/virtual/infiniband/") + d).c_str(),
                        (root + "/class/infiniband/" + d).c_str()), 0);
  auto ino = [&](const std::string& dev) {
    struct stat st {};
    EXPECT_EQ(::stat((root + "/devices/virtual/infiniband/" + dev).c_str(), &st), 0);
    return std::to_string(st.st_ino);
  };
  Inventory first = ReadInventory(SysfsReader(root), {});
  ASSERT_EQ(first.devices.size(), 2u);
  EXPECT_EQ(first.devices[0].instance, std::optional<std::string>("0002:c903:0001:2345@" + ino("dev0")));
  EXPECT_EQ(first.devices[1].instance, std::optional<std::string>("@" + ino("dev1")));
  Inventory again = ReadInventory(SysfsReader(root), {});
  EXPECT_EQ(again.devices[0].instance, first.devices[0].instance) << "same device, same instance";

  // dev0 removed and added again (the old directory kept aside, so its inode cannot come back).
  std::filesystem::rename(root + "/devices/virtual/infiniband/dev0", root + "/devices/gone");
  std::filesystem::create_directories(root + "/devices/virtual/infiniband/dev0");
  std::ofstream(root + "/devices/virtual/infiniband/dev0/node_guid") << "0002:c903:0001:2345\n";
  Inventory readded = ReadInventory(SysfsReader(root), {});
  ASSERT_EQ(readded.devices.size(), 2u);
  ASSERT_TRUE(readded.devices[0].instance);
  EXPECT_NE(readded.devices[0].instance, first.devices[0].instance);
  EXPECT_EQ(readded.devices[1].instance, first.devices[1].instance);
}

// Counters are held to the instance they were read under: a device
// re-created while they were read has none this time, with a warning, rather
// than one instance's values under the other's identity.
TEST(Inventory, CountersOfADeviceRecreatedWhileReadAreLeftOut) {
  SysfsReader fs(kFixtures + "/sys/mlx5_ib");
  InventoryOptions o;
  o.read_counters = true;
  const Inventory read = ReadInventory(fs, o);
  ASSERT_FALSE(read.devices.empty());
  ASSERT_TRUE(read.devices[0].instance);
  ASSERT_FALSE(read.devices[0].ports.empty());
  ASSERT_FALSE(read.devices[0].ports[0].counters.empty());

  for (const std::optional<std::string>& before : {read.devices[0].instance, std::optional<std::string>()}) {
    Device same = read.devices[0];
    same.instance = before;
    std::vector<std::string> warnings;
    AttrReader attrs(fs, &warnings);
    EXPECT_TRUE(KeepCountersOfOneInstance(attrs, &same)) << "same or unknown instance";
    EXPECT_EQ(same.ports[0].counters, read.devices[0].ports[0].counters);
    EXPECT_TRUE(warnings.empty());
  }

  Device recreated = read.devices[0];
  recreated.instance = *read.devices[0].instance + "0";  // another inode read before the counters
  std::vector<std::string> warnings;
  AttrReader attrs(fs, &warnings);
  EXPECT_FALSE(KeepCountersOfOneInstance(attrs, &recreated));
  for (const Port& p : recreated.ports) {
    EXPECT_TRUE(p.counters.empty()) << p.number;
    EXPECT_TRUE(p.hw_counters.empty()) << p.number;
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("re-created while its counters were read"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(read.devices[0].name), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace rdmascope
