// The PostgreSQL fleet load's collectors: N collector processes on one
// PostgreSQL database, each forked from the load tool and built as the
// daemon builds itself (collector/service/collector_main.cpp): the store,
// the API server, the follower of the others' commits, the leader lock and
// the retention worker under it. Their clock is the fleet's simulated one,
// shared with the tool through an anonymous shared mapping, so minutes of
// history go by faster than real time, as in the SQLite load tool.
//
// Contract:
//  - Start() forks the collectors one after the other, each serving once the
//    one before answers (the first runs the migrations); call it before the
//    tool starts any thread of its own (fork copies only the calling
//    thread). It returns each collector's loopback port, or what failed (no
//    child left running).
//  - Kill(i, signal) signals collector i (SIGKILL: as a crash); Stop() ends
//    every collector still running (SIGTERM, then SIGKILL after 30 s) and
//    reaps them all, and the destructor calls it: nothing outlives the tool.
//    Killed, the tool takes them with it (each dies with its parent).
//  - A collector's diagnosis worker does not run, as in the SQLite load tool
//    (rollups and retention do, under the leader lock): the figures are
//    ingest's and the reads'.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/fleet_args.h"
#include "common/status.h"

namespace rdmascope::collector::bench {

class ForkedCollectors {
 public:
  ForkedCollectors();  // the shared clock, at kFleetStartMs
  ~ForkedCollectors();
  ForkedCollectors(const ForkedCollectors&) = delete;
  ForkedCollectors& operator=(const ForkedCollectors&) = delete;

  // n collectors on db (a postgresql:// URL) with the password in
  // password_file; their API options as the SQLite load tool sets them
  // (token, body limit, per-client connections, pinglist size) from a.
  Result<std::vector<int>> Start(int n, const std::string& db, const std::string& password_file, const FleetArgs& a);
  void Kill(size_t i, int signal);
  void Stop();
  pid_t pid(size_t i) const { return pids_[i]; }
  // The collectors' clock (simulated time, ms): the tool moves it on.
  std::atomic<int64_t>* clock() { return clock_; }

 private:
  std::atomic<int64_t>* clock_ = nullptr;
  std::vector<pid_t> pids_;
};

}  // namespace rdmascope::collector::bench
