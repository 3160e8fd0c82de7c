// Spool: atomic one-file-per-report writes, order, the byte cap (oldest
// dropped and counted), corrupt files skipped, and reopening.
#include "agent/daemon/spool.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent_test_util.h"

namespace rdmascope::agent {
namespace {

using testing::LogCapture;
using testing::TempDir;
namespace fs = std::filesystem;

// A JSON report of exactly `bytes` bytes (at least 40).
std::string Report(int n, size_t bytes = 100) {
  std::string head = "{\"report_id\":\"r" + std::to_string(n) + "\",\"pad\":\"";
  std::string tail = "\"}";
  return head + std::string(bytes - head.size() - tail.size(), 'x') + tail;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::unique_ptr<Spool> OpenOk(const std::string& dir, uint64_t cap, LogCapture* log = nullptr) {
  auto s = Spool::Open(dir, cap, log ? log->Fn() : LogFn([](const std::string&) {}));
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(Spool, PutWritesOneWholeFilePerReport) {
  TempDir dir;
  std::string sdir = dir.path() + "/a/spool";  // parents are created
  auto spool = OpenOk(sdir, 1 << 20);
  ASSERT_TRUE(spool);
  ASSERT_TRUE(spool->Put(Report(1)).ok());
  ASSERT_TRUE(spool->Put(Report(2)).ok());
  EXPECT_EQ(Files(sdir), (std::vector<std::string>{SpoolFileName(1), SpoolFileName(2)}));  // no temp files
  EXPECT_EQ(Slurp(sdir + "/" + SpoolFileName(1)), Report(1));
  EXPECT_EQ(spool->count(), 2u);
  EXPECT_EQ(spool->bytes(), 200u);
  struct stat st;
  ASSERT_EQ(stat((sdir + "/" + SpoolFileName(1)).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(Spool, NamesSortInWriteOrder) {
  EXPECT_LT(SpoolFileName(9), SpoolFileName(10));
  EXPECT_LT(SpoolFileName(99999), SpoolFileName(100000));
  EXPECT_EQ(SpoolFileSeq(SpoolFileName(123)), 123u);
  EXPECT_FALSE(SpoolFileSeq("report-1.json"));
  EXPECT_FALSE(SpoolFileSeq(Spool::kCorruptName));
}

TEST(Spool, ReplaysOldestFirst) {
  TempDir dir;
  auto spool = OpenOk(dir.path(), 1 << 20);
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(spool->Put(Report(i)).ok());
  for (int i = 1; i <= 3; ++i) {
    auto e = spool->Oldest();
    ASSERT_TRUE(e);
    auto loaded = spool->Load(*e);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    EXPECT_EQ(loaded->body, Report(i));
    EXPECT_EQ(loaded->report_id, "r" + std::to_string(i));
    ASSERT_TRUE(spool->Remove(*e).ok());
  }
  EXPECT_FALSE(spool->Oldest());
  EXPECT_EQ(spool->bytes(), 0u);
  EXPECT_TRUE(Files(dir.path()).empty());
}

TEST(Spool, CapDropsOldestAndCounts) {
  TempDir dir;
  LogCapture log;
  auto spool = OpenOk(dir.path(), 250, &log);
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(spool->Put(Report(i)).ok());
  EXPECT_EQ(spool->count(), 2u);
  EXPECT_EQ(spool->bytes(), 200u);
  EXPECT_EQ(spool->dropped(), 1u);
  EXPECT_EQ(Files(dir.path()), (std::vector<std::string>{SpoolFileName(2), SpoolFileName(3)}));
  EXPECT_TRUE(log.Contains("dropped so far: 1")) << log.All();
  auto loaded = spool->Load(*spool->Oldest());
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->report_id, "r2");
}

TEST(Spool, ReportLargerThanCapIsNotWrittenAndCounted) {
  TempDir dir;
  auto spool = OpenOk(dir.path(), 150);
  ASSERT_TRUE(spool->Put(Report(1)).ok());
  Status s = spool->Put(Report(2, 151));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("exceeds the spool cap"), std::string::npos) << s.message();
  EXPECT_EQ(spool->dropped(), 1u);
  EXPECT_EQ(spool->count(), 1u);  // the older one is kept
  EXPECT_EQ(Files(dir.path()), (std::vector<std::string>{SpoolFileName(1)}));
}

// A file system of `capacity` bytes for the spool's writes: a write that
// would pass it fails with ENOSPC (nothing written), as a full disk does.
struct SmallDisk {
  std::string dir;
  uint64_t capacity;
  uint64_t Used() const {
    uint64_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file() ? e.file_size() : 0;
    return n;
  }
  Spool::WriteFileFn Fn() {
    return [this](const std::string& path, const std::string& body) {
      if (Used() + body.size() > capacity) return ENOSPC;
      std::ofstream(path) << body;
      return 0;
    };
  }
};

struct Drop {
  std::string reason;
  int64_t made_at_ms;
};

TEST(Spool, FullDiskDeletesTheOldestToKeepTheNewestAndTellsEachDrop) {
  TempDir dir;
  LogCapture log;
  auto spool = OpenOk(dir.path(), 1 << 20, &log);  // the cap is far: the disk fills first
  SmallDisk disk{dir.path(), 350};
  spool->set_write_file(disk.Fn());
  std::vector<Drop> drops;
  spool->set_on_drop([&](const char* reason, int64_t at) { drops.push_back({reason, at}); });
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(spool->Put(Report(i)).ok());
  const auto before = std::chrono::system_clock::now();
  ASSERT_TRUE(spool->Put(Report(4)).ok());  // no room: r1 goes
  ASSERT_TRUE(spool->Put(Report(5)).ok());  // r2 goes
  EXPECT_EQ(Files(dir.path()), (std::vector<std::string>{SpoolFileName(3), SpoolFileName(4), SpoolFileName(5)}));
  EXPECT_EQ(spool->count(), 3u);
  EXPECT_EQ(spool->dropped(), 2u);
  ASSERT_EQ(drops.size(), 2u);
  for (const Drop& d : drops) {
    EXPECT_EQ(d.reason, "disk_full");
    // When the dropped report was made: its file's time, not the drop's.
    EXPECT_LE(d.made_at_ms, std::chrono::duration_cast<std::chrono::milliseconds>(before.time_since_epoch()).count());
    EXPECT_GT(d.made_at_ms, 0);
  }
  EXPECT_TRUE(log.Contains("the file system is full")) << log.All();
  auto loaded = spool->Load(*spool->Oldest());
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->report_id, "r3");
}

TEST(Spool, FullDiskWithNothingToDeleteLosesTheReportAndSaysSo) {
  TempDir dir;
  auto spool = OpenOk(dir.path(), 1 << 20);
  SmallDisk disk{dir.path(), 50};  // not even one report fits
  spool->set_write_file(disk.Fn());
  std::vector<Drop> drops;
  spool->set_on_drop([&](const char* reason, int64_t at) { drops.push_back({reason, at}); });
  Status s = spool->Put(Report(1));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
  EXPECT_EQ(spool->count(), 0u);
  EXPECT_TRUE(Files(dir.path()).empty());  // no temp file left behind
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0].reason, "disk_full");
}

TEST(Spool, OtherWriteErrorsDeleteNothingAndAreTold) {
  TempDir dir;
  auto spool = OpenOk(dir.path(), 1 << 20);
  ASSERT_TRUE(spool->Put(Report(1)).ok());
  spool->set_write_file([](const std::string&, const std::string&) { return EIO; });
  std::vector<Drop> drops;
  spool->set_on_drop([&](const char* reason, int64_t at) { drops.push_back({reason, at}); });
  EXPECT_FALSE(spool->Put(Report(2)).ok());
  EXPECT_EQ(spool->count(), 1u);  // an I/O error is not a reason to delete older reports
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0].reason, "write_error");
}

TEST(Spool, CapAndOversizeDropsAreToldWithTheirReason) {
  TempDir dir;
  auto spool = OpenOk(dir.path(), 250);
  std::vector<Drop> drops;
  spool->set_on_drop([&](const char* reason, int64_t at) { drops.push_back({reason, at}); });
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(spool->Put(Report(i)).ok());
  EXPECT_FALSE(spool->Put(Report(4, 251)).ok());
  ASSERT_EQ(drops.size(), 2u);
  EXPECT_EQ(drops[0].reason, "spool_cap");
  EXPECT_EQ(drops[1].reason, "too_large");
}

TEST(Spool, CorruptFileIsMovedAsideAndDoesNotBlock) {
  TempDir dir;
  LogCapture log;
  {
    auto spool = OpenOk(dir.path(), 1 << 20);
    for (int i = 1; i <= 3; ++i) ASSERT_TRUE(spool->Put(Report(i)).ok());
  }
  std::ofstream(dir.path() + "/" + SpoolFileName(2), std::ios::trunc) << "{\"report_id\": \"r2\", \"trunc";
  std::ofstream(dir.path() + "/" + SpoolFileName(3), std::ios::trunc) << "[1, 2]";
  auto spool = OpenOk(dir.path(), 1 << 20, &log);
  std::vector<std::string> ids;
  int failures = 0;
  for (int guard = 0; guard < 10 && spool->Oldest(); ++guard) {
    auto e = *spool->Oldest();
    auto loaded = spool->Load(e);
    if (!loaded.ok()) {
      ++failures;
      continue;  // already out of the queue
    }
    ids.push_back(loaded->report_id);
    ASSERT_TRUE(spool->Remove(e).ok());
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"r1"}));
  EXPECT_EQ(failures, 2);
  EXPECT_EQ(spool->count(), 0u);
  EXPECT_TRUE(log.Contains(SpoolFileName(2) + " is not a usable report (not JSON)")) << log.All();
  EXPECT_TRUE(log.Contains("JSON but not an object")) << log.All();
  // Only the last corrupt file is kept.
  EXPECT_EQ(Files(dir.path()), (std::vector<std::string>{Spool::kCorruptName}));
  EXPECT_EQ(Slurp(dir.path() + "/" + Spool::kCorruptName), "[1, 2]");
}

TEST(Spool, SurvivesReopen) {
  TempDir dir;
  {
    auto spool = OpenOk(dir.path(), 1 << 20);
    ASSERT_TRUE(spool->Put(Report(1)).ok());
    ASSERT_TRUE(spool->Put(Report(2)).ok());
  }
  // A temp file left by a crash mid-write, and a file that is not ours.
  std::ofstream(dir.path() + "/.report-00000000000000000003.json.tmp") << "{\"half";
  std::ofstream(dir.path() + "/README") << "not a report";
  LogCapture log;
  auto spool = OpenOk(dir.path(), 1 << 20, &log);
  EXPECT_EQ(spool->count(), 2u);
  EXPECT_EQ(spool->bytes(), 200u);
  EXPECT_TRUE(log.Contains("deleted stale temp file")) << log.All();
  ASSERT_TRUE(spool->Put(Report(3)).ok());
  EXPECT_EQ(Files(dir.path()),
            (std::vector<std::string>{"README", SpoolFileName(1), SpoolFileName(2), SpoolFileName(3)}));
  EXPECT_EQ(spool->Load(*spool->Oldest())->report_id, "r1");
}

TEST(Spool, ReopenWithSmallerCapDropsOldest) {
  TempDir dir;
  {
    auto spool = OpenOk(dir.path(), 1 << 20);
    for (int i = 1; i <= 4; ++i) ASSERT_TRUE(spool->Put(Report(i)).ok());
  }
  auto spool = OpenOk(dir.path(), 200);
  EXPECT_EQ(spool->count(), 2u);
  EXPECT_EQ(spool->dropped(), 2u);
  EXPECT_EQ(spool->Load(*spool->Oldest())->report_id, "r3");
}

TEST(Spool, OpenFailureNamesTheDirectory) {
  TempDir dir;
  std::ofstream(dir.path() + "/file") << "x";
  auto s = Spool::Open(dir.path() + "/file/spool", 1024, [](const std::string&) {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(dir.path() + "/file/spool"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace rdmascope::agent
