// Store: the WAL is copied into the database file after the group commit
// answered its reports, not inside their commit, by a thread that does not
// wait for the writer; a commit that leaves the WAL past the backstop
// checkpoints at once.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "collector/ingest/group_commit.h"
#include "collector/store/storage.h"
#include "tests/collector/old_database.h"
#include "tests/collector/test_batch.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;

constexpr int64_t kT0 = 1700000000000;
constexpr int64_t kWalHeaderBytes = 32, kWalFrameHeaderBytes = 24;
// A commit rewrites the pages it touched, so the WAL holds several copies of
// some: a checkpoint of kWalCheckpointPages frames copies at least this many
// distinct pages (about 420 measured with these reports).
constexpr int64_t kCopiedPages = WriterDb::kWalCheckpointPages / 5;

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing::OpenCurrentStore(dir_.File("store.db"));
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
    auto space = store_->retention.DatabaseSpace();
    ASSERT_TRUE(space.ok()) << space.status().message();
    page_size_ = space.value().page_size;
    file_bytes_at_open_ = Bytes("store.db");
  }
  int64_t Bytes(const std::string& name) const {
    std::error_code ec;
    auto n = std::filesystem::file_size(dir_.File(name), ec);
    return ec ? 0 : static_cast<int64_t>(n);
  }
  // Frames the WAL file has room for: it is reused from its start after a
  // checkpoint, so this only grows.
  int64_t WalFrames() const {
    const int64_t bytes = Bytes("store.db-wal");
    return bytes <= kWalHeaderBytes ? 0 : (bytes - kWalHeaderBytes) / (page_size_ + kWalFrameHeaderBytes);
  }
  // Whether the database file took at least `pages` pages since the store opened.
  bool FileGrewBy(int64_t pages) const { return Bytes("store.db") >= file_bytes_at_open_ + pages * page_size_; }
  // A report of `probes` summaries, its own id and time.
  json NextReport(int probes) {
    const int64_t at = kT0 + n_ * 10000;
    json r = MakeReport("r-" + std::to_string(n_++), "node-a", at);
    for (int k = 0; k < probes; ++k) r["probes"].push_back(MakeProbe("node-" + std::to_string(k), at));
    return r;
  }
  void IngestOne(int probes) {
    json r = NextReport(probes);
    std::vector<ReportWriter::BatchItem> items = testing::BatchOf({&r}, kT0);
    store_->writer.IngestBatch(items);
    ASSERT_TRUE(items[0].status.ok()) << items[0].status.message();
  }
  // Commits, with no checkpoint call, until the WAL holds more than a
  // checkpoint's worth (about 25 frames a report: 200 are far more than needed).
  void FillWalPastCheckpointMark() {
    for (int i = 0; i < 200 && WalFrames() < WriterDb::kWalCheckpointPages + 100; ++i) ASSERT_NO_FATAL_FAILURE(IngestOne(300));
    ASSERT_GE(WalFrames(), WriterDb::kWalCheckpointPages + 100) << "the WAL was restarted: a commit checkpointed it";
  }

  testsupport::ScratchDir dir_{"collector_checkpoint_test"};
  std::unique_ptr<Storage> store_;
  int64_t page_size_ = 0, file_bytes_at_open_ = 0;
  int n_ = 0;
};

TEST_F(CheckpointTest, ACommitLeavesTheWalForTheCheckpointToCopy) {
  ASSERT_NO_FATAL_FAILURE(FillWalPastCheckpointMark());
  ASSERT_LT(WalFrames(), WriterDb::kWalBackstopPages) << "the reports are small enough to stop below the backstop";
  EXPECT_FALSE(FileGrewBy(100)) << "no commit copied the WAL into the database file";

  ASSERT_TRUE(store_->checkpoint.CheckpointWal().ok());
  EXPECT_TRUE(FileGrewBy(kCopiedPages)) << "the checkpoint copied the WAL's pages";
  const int64_t after_first = Bytes("store.db");
  ASSERT_TRUE(store_->checkpoint.CheckpointWal().ok());
  EXPECT_EQ(Bytes("store.db"), after_first) << "nothing left to copy";
}

TEST_F(CheckpointTest, TheGroupCommitCopiesTheWalOnceItAnswered) {
  GroupCommitter committer(*store_);
  // 200 reports write about 5,000 frames, past the backstop; the
  // checkpoints after each answer keep the WAL far below it.
  for (int i = 0; i < 200 && !FileGrewBy(kCopiedPages); ++i) {
    json r = NextReport(300);
    auto res = committer.Submit(r, kT0, std::nullopt);
    ASSERT_TRUE(res.ok()) << res.status().message();
  }
  // The checkpoint runs after the answer: wait for it, with a deadline.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!FileGrewBy(kCopiedPages) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(FileGrewBy(kCopiedPages)) << "the checkpoint thread did not copy the WAL within 30 s";
  EXPECT_LT(WalFrames(), WriterDb::kWalBackstopPages) << "the checkpoint thread copied it, not the backstop";
}

TEST_F(CheckpointTest, ACheckpointDoesNotWaitForTheWriter) {
  ASSERT_NO_FATAL_FAILURE(FillWalPastCheckpointMark());
  ASSERT_FALSE(FileGrewBy(100));
  // While the writer is inside a report's transaction, holding the store's
  // lock, a checkpoint from another thread runs to its end.
  // (A checkpoint that waits for the lock ends after the transaction, so
  // the future outlives the hook.)
  bool copied_meanwhile = false, asked = false;
  std::future<Status> checkpoint;
  store_->db.SetIngestFaultHook([&](const std::string& step) {
    if (step != "report" || asked) return Status::Ok();
    asked = true;
    checkpoint = std::async(std::launch::async, [&] { return store_->checkpoint.CheckpointWal(); });
    copied_meanwhile = checkpoint.wait_for(std::chrono::seconds(20)) == std::future_status::ready &&
                       checkpoint.get().ok() && FileGrewBy(kCopiedPages);
    return Status::Ok();
  });
  ASSERT_NO_FATAL_FAILURE(IngestOne(10));
  store_->db.SetIngestFaultHook(nullptr);
  EXPECT_TRUE(asked);
  EXPECT_TRUE(copied_meanwhile) << "the checkpoint waited for the writer's transaction to end";
}

TEST_F(CheckpointTest, ACommitPastTheBackstopCopiesTheWalAtOnce) {
  // Without a writer thread after them (retention, rollups), commits still
  // keep the WAL bounded.
  for (int i = 0; i < 200 && WalFrames() < WriterDb::kWalBackstopPages; ++i) ASSERT_NO_FATAL_FAILURE(IngestOne(1500));
  ASSERT_GE(WalFrames(), WriterDb::kWalBackstopPages);
  EXPECT_TRUE(FileGrewBy(WriterDb::kWalBackstopPages / 8)) << "the commit past the backstop copied the WAL";
}

}  // namespace
}  // namespace rdmascope::collector
