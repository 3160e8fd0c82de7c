// Checkpoints of the writer's WAL (the store's checkpoint thread).
//
// Contract: a commit does not copy the WAL into the database file while
// reports wait for its acknowledgement. CheckpointWal() copies it (passive:
// readers and the writer are never waited for) once
// WriterDb::kWalCheckpointPages not yet copied are in it, on a connection of
// its own and without the writer's lock, so it may run on any thread while
// the writer commits (the group commit's checkpoint thread calls it after
// each batch). Frames committed during a copy wait for the next one, so under
// steady load the WAL is only restarted by the backstop: a commit that leaves
// WriterDb::kWalBackstopPages or more in it copies what is left at once, on
// the writer's connection (this also bounds writes no checkpoint call
// follows: retention, rollups). Closing the store checkpoints the rest. A
// failed checkpoint is tried again at the next call; the commits themselves
// report a storage fault.
#pragma once

#include <memory>
#include <mutex>

#include "collector/store/writer_db.h"

namespace rdmascope::collector {

class WalCheckpoint {
 public:
  explicit WalCheckpoint(WriterDb& w);
  Status CheckpointWal();

 private:
  WriterDb& w_;
  std::mutex checkpoint_mu_;
  std::unique_ptr<Db> checkpoint_db_;  // opened on first use; none for ":memory:"
};

}  // namespace rdmascope::collector
