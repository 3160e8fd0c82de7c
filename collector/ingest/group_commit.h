#pragma once
// Group commit: one writer thread owns every ingest.
//
// Contract: Submit() blocks until the report's transaction has committed (or
// failed) and returns its result, so an acknowledgement still means "on disk"
// (synchronous=FULL stays on; the agent deletes its spooled copy on the 200).
// Reports that arrive while a commit is in flight wait together and go into
// the next transaction — at most max_batch of them — so under load many
// reports share one fsync instead of paying one each. A report that fails
// alone (bad data the validator let through, a fault) fails alone; a failed
// commit fails its whole batch and stores none of it. After a commit the
// writer hands the batch to a publisher thread and goes on with the next
// one: the publisher puts the batch's rows into the read snapshot
// (ReadModel::PublishSnapshot, batches in commit order) and only then answers
// its reports, so an answered report is visible to every read. The writer
// also wakes a checkpoint thread of its own, which copies the WAL into the
// database file once it has grown (WalCheckpoint::CheckpointWal), so no report
// waits for that. The destructor drains what was submitted, then joins the
// writer, the publisher and the checkpoint thread, in that order.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "collector/store/storage.h"

namespace rdmascope::collector {

// The threads' names (at most 15 characters).
inline constexpr char kWriterThreadName[] = "rdms-writer";
inline constexpr char kCheckpointThreadName[] = "rdms-checkpoint";
inline constexpr char kPublisherThreadName[] = "rdms-publish";

class GroupCommitter {
 public:
  explicit GroupCommitter(Storage& store, size_t max_batch = 64);
  ~GroupCommitter();
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // probes: ExtractProbes(report), made by the caller so the writer need not;
  // nullptr: the writer extracts them. rows: with probes, their snapshot rows
  // (ReportWriter::BatchItem::rows), made by the caller too; or nullptr.
  Result<IngestResult> Submit(const nlohmann::json& report, int64_t received_at_ms,
                              std::optional<int64_t> clock_skew_ms, const std::vector<ProbeInput>* probes = nullptr,
                              const std::vector<std::shared_ptr<const ProbeRow>>* rows = nullptr);

  // Transactions committed so far and reports in them (for the benchmark and metrics).
  uint64_t batches() const;
  uint64_t reports() const;

 private:
  struct Pending {
    ReportWriter::BatchItem item;
    bool done = false;
  };
  // A committed batch on its way to the publisher.
  struct Committed {
    std::vector<Pending*> batch;
    std::vector<ReportWriter::BatchItem> items;  // their outcomes, in batch order
    SnapshotUpdate update;
  };
  void Run();
  void RunPublisher();
  void RunCheckpoints();

  Storage& store_;
  const size_t max_batch_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Pending*> queue_;
  bool stop_ = false;
  uint64_t batches_ = 0, reports_ = 0;
  // The publisher's queue (under mu_): it stops once the writer has stopped
  // and the queue is empty.
  std::condition_variable publish_cv_;
  std::deque<Committed> committed_;
  bool writer_done_ = false;
  // The checkpoint thread's wake-up: set after each batch, and to stop.
  std::mutex checkpoint_mu_;
  std::condition_variable checkpoint_cv_;
  bool checkpoint_wanted_ = false, checkpoint_stop_ = false;
  std::thread writer_, publisher_, checkpointer_;
};

}  // namespace rdmascope::collector
