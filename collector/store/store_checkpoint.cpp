// Store: checkpoints of the writer's WAL, taken off the acknowledgement path
// and off the writer (contract in store.h, CheckpointWal).
#include "collector/store/store.h"

namespace rdmascope::collector {

// Runs inside each commit on the writer's connection (the caller holds mu_).
// Registering it replaces SQLite's automatic checkpoint after a commit.
int Store::OnWalCommit(void* store, sqlite3* /*db*/, const char* /*schema*/, int pages) {
  auto* self = static_cast<Store*>(store);
  self->wal_pages_ = pages;
  // The WAL only shrinks when a write restarted it from its start.
  if (pages < self->wal_copied_) self->wal_copied_ = 0;
  // Copies what the checkpoints left, so the next transaction restarts the
  // WAL; busy while CheckpointWal() copies, and then tried at the next commit.
  if (pages >= kWalBackstopPages) (void)self->CopyWal(self->db_);
  return SQLITE_OK;  // the commit stands whatever the checkpoint did
}

int Store::WalPagesToCopy() const {
  const int pages = wal_pages_, copied = wal_copied_;
  return pages >= copied ? pages - copied : pages;
}

Status Store::CopyWal(Db& db) {
  int log = 0, done = 0;
  if (sqlite3_wal_checkpoint_v2(db.raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &done) != SQLITE_OK)
    return Status::Error("checkpoint of " + options_.path + "-wal into the database file: " + db.ErrorMessage());
  // Frames a reader still needs, and those committed meanwhile, are left
  // for the next call.
  if (log < 0) return Status::Error("checkpoint of " + options_.path + ": the connection is not in WAL mode");
  if (done > 0) wal_copied_ = done;
  return Status::Ok();
}

Status Store::CheckpointWal() {
  if (WalPagesToCopy() < kWalCheckpointPages) return Status::Ok();
  std::lock_guard<std::mutex> lock(checkpoint_mu_);
  if (!checkpoint_db_) {
    if (options_.path == ":memory:") return Status::Ok();
    auto db = Db::Open(options_.path);
    if (!db.ok()) return db.status();
    // A connection finds the database in WAL mode on its first read; until
    // then a checkpoint on it copies nothing.
    if (Status s = db.value().Exec("PRAGMA schema_version"); !s.ok()) return s;
    checkpoint_db_ = std::make_unique<Db>(std::move(db).value());
  }
  return CopyWal(*checkpoint_db_);
}

}  // namespace rdmascope::collector
