// Checkpoints of the writer's WAL, taken off the acknowledgement path and off
// the writer (contract in wal_checkpoint.h).
#include "collector/store/wal_checkpoint.h"

namespace rdmascope::collector {

WalCheckpoint::WalCheckpoint(WriterDb& w) : w_(w) {}

Status WalCheckpoint::CheckpointWal() {
  if (w_.WalPagesToCopy() < WriterDb::kWalCheckpointPages) return Status::Ok();
  std::lock_guard<std::mutex> lock(checkpoint_mu_);
  if (!checkpoint_db_) {
    if (w_.path() == ":memory:") return Status::Ok();
    auto db = Db::Open(w_.path());
    if (!db.ok()) return db.status();
    // A connection finds the database in WAL mode on its first read; until
    // then a checkpoint on it copies nothing.
    if (Status s = db.value().Exec("PRAGMA schema_version"); !s.ok()) return s;
    checkpoint_db_ = std::make_unique<Db>(std::move(db).value());
  }
  return w_.CopyWal(*checkpoint_db_);
}

}  // namespace rdmascope::collector
