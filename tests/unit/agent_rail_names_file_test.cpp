// Rail names kept on disk: round trip, an absent file, a damaged one, and
// the order in which remembered names are offered to ComputeRails.
#include "agent/daemon/rail_names_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/scratch_dir.h"

namespace rdmascope::agent {
namespace {

std::string Text(const std::vector<RailSpec>& v) {
  std::string out;
  for (const RailSpec& r : v) out += r.name + "=" + r.where.device + "/" + std::to_string(r.where.port) + " ";
  return out;
}

TEST(RailNamesFile, SavedNamesLoadBackAndNoTempFileStays) {
  testsupport::ScratchDir dir("rail_names");
  const std::string path = dir.path() + "/rail-names.json";
  const std::vector<RailSpec> names = {{"0", {"rxe0", 1}}, {"1", {"rxe2", 1}}, {"2", {"rxe1", 1}}};
  ASSERT_TRUE(SaveRailNames(path, names).ok());
  auto back = LoadRailNames(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Text(*back), "0=rxe0/1 1=rxe2/1 2=rxe1/1 ");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(RailNamesFile, AnAbsentFileIsNoNames) {
  testsupport::ScratchDir dir("rail_names");
  auto none = LoadRailNames(dir.path() + "/rail-names.json");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->empty());
}

TEST(RailNamesFile, ADamagedFileIsAnErrorNamingIt) {
  testsupport::ScratchDir dir("rail_names");
  const std::string path = dir.path() + "/rail-names.json";
  for (const char* text : {"{\"rails\": [", "[]", "{\"rails\": [{\"name\": \"0\", \"device\": \"rxe0\"}]}",
                           "{\"rails\": [{\"name\": \"a b\", \"device\": \"rxe0\", \"port\": 1}]}",
                           "{\"rails\": [{\"name\": \"0\", \"device\": \"rxe0\", \"port\": 300}]}"}) {
    std::ofstream(path) << text;
    auto r = LoadRailNames(path);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find(path), std::string::npos) << r.status().message();
  }
}

TEST(RailNamesFile, SaveMakesTheDirectoryAndNamesTheFileWhenItCannot) {
  testsupport::ScratchDir dir("rail_names");
  ASSERT_TRUE(SaveRailNames(dir.path() + "/not/yet/rail-names.json", {{"0", {"rxe0", 1}}}).ok());
  std::ofstream(dir.path() + "/file") << "x";  // a file where a directory should be
  Status s = SaveRailNames(dir.path() + "/file/rail-names.json", {{"0", {"rxe0", 1}}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rail-names.json.tmp"), std::string::npos) << s.message();
}

// The names of now first, then remembered ports not named now; with
// ComputeRails that keeps a restart's names, also for a port that comes late.
TEST(RailNamesFile, MergedNamesKeepEveryPortsNameAcrossARestart) {
  // The running agent had rxe0 and rxe2, then rxe1 came late and took "2".
  const std::vector<RailSpec> remembered = {{"0", {"rxe0", 1}}, {"1", {"rxe2", 1}}, {"2", {"rxe1", 1}}};
  // Restarted with every device present: by position rxe1 would be "1".
  std::vector<PortRef> known = {{"rxe0", 1}, {"rxe1", 1}, {"rxe2", 1}};
  auto specs = ComputeRails(known, {}, {}, MergeRailNames({}, remembered));
  EXPECT_EQ(Text(specs), "0=rxe0/1 2=rxe1/1 1=rxe2/1 ");
  // Restarted without rxe1, which comes back later.
  known = {{"rxe0", 1}, {"rxe2", 1}};
  specs = ComputeRails(known, {}, {}, MergeRailNames({}, remembered));
  EXPECT_EQ(Text(specs), "0=rxe0/1 1=rxe2/1 ");
  known = {{"rxe0", 1}, {"rxe1", 1}, {"rxe2", 1}};
  specs = ComputeRails(known, {}, {}, MergeRailNames(specs, remembered));
  EXPECT_EQ(Text(specs), "0=rxe0/1 2=rxe1/1 1=rxe2/1 ");
  // A name of now wins over a remembered one for the same port.
  EXPECT_EQ(Text(MergeRailNames({{"9", {"rxe0", 1}}}, remembered)), "9=rxe0/1 1=rxe2/1 2=rxe1/1 ");
}

}  // namespace
}  // namespace rdmascope::agent
