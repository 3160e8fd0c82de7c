// Store: checkpoints of the writer's WAL, taken off the acknowledgement path
// (contract in store.h, CheckpointWal).
#include "collector/store.h"

namespace rdmascope::collector {

// Runs inside each commit on the writer's connection (the caller holds mu_).
// Registering it replaces SQLite's automatic checkpoint after a commit.
int Store::OnWalCommit(void* store, sqlite3* /*db*/, const char* /*schema*/, int pages) {
  auto* self = static_cast<Store*>(store);
  self->wal_pages_ = pages;
  if (pages >= kWalBackstopPages) (void)self->CopyWal();  // tried again at the next commit
  return SQLITE_OK;  // the commit stands whatever the checkpoint did
}

Status Store::CopyWal() {
  int log = 0, done = 0;
  if (sqlite3_wal_checkpoint_v2(db_.raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &done) != SQLITE_OK)
    return Status::Error("checkpoint of " + options_.path + "-wal into the database file: " + db_.ErrorMessage());
  // Frames a reader still needs stay; the next call copies them.
  if (log == done) wal_pages_ = 0;
  return Status::Ok();
}

Status Store::CheckpointWal() {
  std::lock_guard<std::mutex> lock(mu_);
  return wal_pages_ < kWalCheckpointPages ? Status::Ok() : CopyWal();
}

}  // namespace rdmascope::collector
