// Keeps this collector's read model (matrix, /metrics, port list, nodes)
// fresh with what the other collectors sharing the PostgreSQL database
// commit: each of their commits is announced on kPgCommitChannel
// (pg_locks.h, ReportWriter::AnnounceCommit) and followed here.
//
// Contract:
//  - A thread of its own LISTENs on a connection of its own; announcements
//    of this collector's own store (its instance id) are ignored: its own
//    commits refresh the read model as they happen.
//  - The reports announced (commit_announcement.h) are gathered for up to
//    kBatchMs and followed together under the writer's lock
//    (SnapshotLoader::FollowCommit): their nodes' state read back, their
//    probe rows applied. Announcements missed
//    while the connection was down cannot be known: after every (re)connect
//    the read model is rebuilt whole from the database.
//  - A lost connection is made again after a wait (1 s doubling to 10 s);
//    failures are logged once per change, never stop the collector.
//  - Stop() (and destruction) ends the thread within about kPollMs.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collector/store/commit_announcement.h"
#include "collector/store/storage.h"

namespace rdmascope::collector {

class PgCommitFollower {
 public:
  PgCommitFollower(Storage& store, std::string target, std::string password,
                   std::function<void(const std::string&)> log);
  ~PgCommitFollower() { Stop(); }
  void Start();
  void Stop();
  // Commits of other collectors followed so far (for tests and logs).
  uint64_t followed() const { return followed_.load(); }

  static constexpr int kBatchMs = 100, kPollMs = 250;

 private:
  void Run();
  // Under the writer's lock: nodes followed, or the whole model rebuilt.
  void Follow(const std::vector<CommittedReport>& reports, const std::set<std::string>& bare_nodes, bool fabric);
  void Rebuild();
  void Note(const std::string& what);  // logged when it differs from the last

  Storage& store_;
  const std::string target_, password_;
  std::function<void(const std::string&)> log_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> followed_{0};
  std::thread thread_;
  std::string last_note_;
};

}  // namespace rdmascope::collector
