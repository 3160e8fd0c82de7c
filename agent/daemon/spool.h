// Spool: a bounded on-disk queue of undelivered reports, one report per file.
//
// Contract:
// - Put() writes a report atomically (temp file, fsync, rename, fsync of the
//   directory): after a crash a spool file is either whole or absent. Stale
//   temp files are deleted by Open().
// - File names carry a sequence number that sorts in write order; Oldest()
//   is the earliest write. Open() reads the directory, so the queue survives
//   restarts, and continues the sequence after the highest name found.
// - The sum of file sizes stays at or below max_bytes: after a write, the
//   oldest files are deleted until it fits. A report larger than max_bytes is
//   not written. Both count in dropped() and are logged.
// - A write that fails because the file system is full (ENOSPC, EDQUOT)
//   deletes the oldest spooled report and tries again, until the report is
//   written or the spool is empty: the newest reports are kept, as under the
//   cap. Those deleted count in dropped() and are logged.
// - Every report the spool deletes or cannot write is told to the drop
//   callback (set_on_drop) with a reason (report_losses.h: kLossSpoolCap,
//   kLossDiskFull, kLossTooLarge, kLossWriteError) and when it was made: a
//   spooled file's modification time, or now for the report being written.
// - Load() hands back a file's text only when it is a JSON object; anything
//   else (unreadable, truncated, not JSON) is removed from the queue at once:
//   it is renamed to "last-corrupt.json" in the spool directory (replacing the
//   previous one, so at most one is kept) or deleted, and logged. A bad file
//   therefore never blocks the queue.
// - Remove() takes an entry out of the queue even when deleting its file
//   fails (the failure is returned); such a file is replayed after a restart,
//   which the collector tolerates (a replayed report_id is stored once).
// - Files are created 0600. Other files in the directory are ignored.
// - Lock() takes an exclusive flock on DIR/.lock (waiting for another agent
//   process, e.g. a --once beside the service) and re-reads the directory, so
//   two processes sharing a spool never collide; it nests within a process
//   (the lock is released when the outermost guard goes).
// Not thread-safe: one owner (the daemon loop) uses it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "agent/daemon/daemon_log.h"
#include "common/status.h"

namespace rdmascope::agent {

class Spool {
 public:
  struct Entry {
    uint64_t seq = 0;
    std::string name;  // file name inside the spool directory
    uint64_t bytes = 0;
  };
  struct Loaded {
    std::string body;
    std::string report_id;  // "" when the report has none
  };

  // (reason, when the report was made in epoch ms): one report not kept.
  using DropFn = std::function<void(const char* reason, int64_t made_at_ms)>;
  // Writes `body` to a new file at `path`, synced and closed; 0 or the errno
  // of the step that failed. The default uses open/write/fsync/close; tests
  // pass one that runs out of space.
  using WriteFileFn = std::function<int(const std::string& path, const std::string& body)>;

  // Creates the directory (and parents) when missing.
  static Result<std::unique_ptr<Spool>> Open(const std::string& dir, uint64_t max_bytes, LogFn log = nullptr);

  class LockGuard {
   public:
    explicit LockGuard(Spool* s) : s_(s) {}
    ~LockGuard() { s_->Unlock(); }
    LockGuard(const LockGuard&) = delete;
    LockGuard& operator=(const LockGuard&) = delete;

   private:
    Spool* s_;
  };
  // Errors (the lock file cannot be opened) are logged; the guard is returned anyway.
  std::unique_ptr<LockGuard> Lock();

  Status Put(const std::string& body);
  std::optional<Entry> Oldest() const;
  Result<Loaded> Load(const Entry& entry);
  Status Remove(const Entry& entry);

  void set_on_drop(DropFn on_drop) { on_drop_ = std::move(on_drop); }
  void set_write_file(WriteFileFn write_file) { write_file_ = std::move(write_file); }

  size_t count() const { return entries_.size(); }
  uint64_t bytes() const { return bytes_; }
  uint64_t dropped() const { return dropped_; }
  const std::string& dir() const { return dir_; }

  static constexpr const char* kCorruptName = "last-corrupt.json";

 private:
  Spool(std::string dir, uint64_t max_bytes, LogFn log);
  Status Scan();
  void Unlock();
  std::string PathOf(const std::string& name) const { return dir_ + "/" + name; }
  void EnforceCap();
  // Deletes the oldest entry (reason for the drop callback); false when none.
  bool DropOldest(const char* reason, const std::string& why);
  void Dropped(const char* reason, int64_t made_at_ms);
  // Writes the temp file and renames it into place: 0, or the errno of the failing step (*error says which).
  int WriteEntry(const std::string& temp, const std::string& path, const std::string& body, std::string* error);
  void PopFront(const Entry& e);
  void Corrupt(const Entry& e, const std::string& why);

  std::string dir_;
  uint64_t max_bytes_;
  LogFn log_;
  DropFn on_drop_;
  WriteFileFn write_file_;
  std::deque<Entry> entries_;  // oldest first
  uint64_t bytes_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t dropped_ = 0;
  int lock_fd_ = -1;
  int lock_depth_ = 0;
};

// "report-<20 digit seq>.json"; and the sequence of such a name.
std::string SpoolFileName(uint64_t seq);
std::optional<uint64_t> SpoolFileSeq(const std::string& name);

}  // namespace rdmascope::agent
