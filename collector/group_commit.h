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
// commit fails its whole batch and stores none of it. After answering a
// batch the writer wakes a checkpoint thread of its own, which copies the
// WAL into the database file once it has grown (Store::CheckpointWal) while
// the writer goes on with the next batch, so no report waits for that. The
// destructor drains what was submitted, then joins the writer, then the
// checkpoint thread.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "collector/store.h"

namespace rdmascope::collector {

// The threads' names (at most 15 characters).
inline constexpr char kWriterThreadName[] = "rdms-writer";
inline constexpr char kCheckpointThreadName[] = "rdms-checkpoint";

class GroupCommitter {
 public:
  explicit GroupCommitter(Store& store, size_t max_batch = 64);
  ~GroupCommitter();
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // probes: ExtractProbes(report), made by the caller so the writer need not;
  // nullptr: the writer extracts them.
  Result<IngestResult> Submit(const nlohmann::json& report, int64_t received_at_ms,
                              std::optional<int64_t> clock_skew_ms, const std::vector<ProbeInput>* probes = nullptr);

  // Transactions committed so far and reports in them (for the benchmark and metrics).
  uint64_t batches() const;
  uint64_t reports() const;

 private:
  struct Pending {
    Store::BatchItem item;
    bool done = false;
  };
  void Run();
  void RunCheckpoints();

  Store& store_;
  const size_t max_batch_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Pending*> queue_;
  bool stop_ = false;
  uint64_t batches_ = 0, reports_ = 0;
  // The checkpoint thread's wake-up: set after each batch, and to stop.
  std::mutex checkpoint_mu_;
  std::condition_variable checkpoint_cv_;
  bool checkpoint_wanted_ = false, checkpoint_stop_ = false;
  std::thread writer_, checkpointer_;
};

}  // namespace rdmascope::collector
