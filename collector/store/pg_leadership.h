// Which of the collectors sharing one PostgreSQL database leads: runs the
// fleet-wide passes (diagnosis, rollups and retention) that must run once,
// not once per collector.
//
// Contract:
//  - The leader is the collector whose own connection holds the session
//    advisory lock kPgLeaderLock (pg_locks.h). The server lets the lock go
//    when that connection ends, so a leader that dies (kill -9 included: its
//    socket closes) or loses the server leads no more, and the next Lead()
//    of another collector takes the lock.
//  - Lead() says whether this collector leads now, from any thread: holding
//    the lock, it checks the connection with one round trip (a lost
//    connection is a lost lock); not holding it, it connects when needed and
//    tries the lock once, never waiting for it. A server that cannot be
//    reached is "not leading" until it can, reported once per change by log.
//  - Transitions are logged: "leading: ..." and "no longer leading: ...".
//  - The connection asks the server to notice a silent peer within about
//    20 s (TCP keepalives), so a leader whose host vanished lets go too.
//  - Destruction closes the connection, which lets the lock go at once.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "collector/store/pg_db.h"

namespace rdmascope::collector {

class PgLeadership {
 public:
  PgLeadership(std::string target, std::string password, std::function<void(const std::string&)> log);
  bool Lead();

 private:
  // Connects when there is no connection (false when it fails).
  bool Connected();
  void Drop(const std::string& why);

  const std::string target_, password_;
  std::function<void(const std::string&)> log_;
  std::mutex mu_;
  std::unique_ptr<PgDb> db_;
  bool leading_ = false;
  std::string last_error_;  // the last failure logged, so that a lasting one is said once
};

}  // namespace rdmascope::collector
