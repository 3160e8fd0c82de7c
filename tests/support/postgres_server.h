// A real PostgreSQL server for a test or a benchmark: Debian's postgresql
// package, a cluster of its own in a scratch directory, stopped and removed
// at the end. No mock: what the collector's PostgreSQL backend is tested
// against.
//
// Contract:
//  - Start() finds initdb, pg_ctl and postgres in $RDMASCOPE_PG_BIN, else in
//    the highest /usr/lib/postgresql/<major>/bin, and makes
//    /tmp/rdmascope-pg.XXXXXX (mkdtemp: no two servers share one). initdb
//    makes the cluster with superuser kUser and a random password: trust
//    over the cluster's own unix socket (in that directory, nobody else's),
//    scram-sha-256 over TCP. The server listens on 127.0.0.1 at a free port
//    (an ephemeral port the kernel hands out; when the server cannot bind it
//    because another process took it meanwhile, Start tries another, 5 times
//    in all) and on its unix socket; nothing on other addresses.
//  - PostgreSQL refuses to run as root: run as root, the directory is given
//    to `nobody` and every tool runs through runuser as that user; run as
//    anyone else, as that user.
//  - Tuned for tests, not durability: fsync, synchronous_commit and
//    full_page_writes off. $RDMASCOPE_PG_OPTIONS, when set, is appended to
//    the server's options (e.g. "-c shared_preload_libraries=pg_stat_statements"
//    to see where a benchmark's server time goes).
//  - Stop() (and the destructor) stops the server (pg_ctl stop -m fast; the
//    postmaster killed when it is still there 30 s later) and removes the
//    directory: nothing outlives the test. Stop() returns what failed.
//    Start() makes this process a child subreaper (prctl), so the
//    postmaster, orphaned when pg_ctl exits, is this process's to reap and
//    Stop() reaps it: no zombie is left either.
//  - A process killed before its Stop() (a test past its timeout, a
//    benchmark interrupted) leaves nothing either: Start() spawns a watchdog
//    (/bin/sh, in a session of its own, out of reach of a kill of the
//    test's process group) that waits on a pipe whose only writer is this process and
//    its forks; when the last of them is gone, it shuts the server down
//    (SIGQUIT, then SIGKILL after 10 s) and removes the directory. Stop()
//    ends it and reaps it.
//  - Errors say which step failed, with its output and the tail of the
//    server's log.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/required_tool.h"
#include "tests/support/run_command.h"

namespace rdmascope::testsupport {

class PostgresServer {
 public:
  static constexpr const char* kUser = "rdmascope";

  // The server, running; or null with *error saying what failed.
  static std::unique_ptr<PostgresServer> Start(std::string* error);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // "" when stopped cleanly, else what failed (the directory is removed either way).
  std::string Stop();
  // An outage: Pause() stops the server (pg_ctl stop -m fast) and keeps
  // its cluster; Resume() starts it again on the same port. "" or what failed.
  std::string Pause();
  std::string Resume();

  int port() const { return port_; }
  pid_t postmaster_pid() const { return pid_; }
  const std::string& dir() const { return dir_; }
  const std::string& password() const { return password_; }
  // A file holding only the password (as --db-password-file takes it).
  std::string password_file() const { return dir_ + "/password"; }
  int major_version() const { return major_; }
  // postgresql://rdmascope@127.0.0.1:PORT/DB (the password is not in it).
  std::string Url(const std::string& db = "postgres") const;
  // libpq keywords over the unix socket, which needs no password.
  std::string SocketConninfo(const std::string& db = "postgres") const;
  // The last lines of the server's log.
  std::string LogTail() const;
  // Whether process pid runs (a zombie does not: the postmaster, orphaned
  // when pg_ctl exits, may wait to be reaped by a parent that never does).
  static bool Alive(pid_t pid);

 private:
  PostgresServer() = default;
  std::string bin_, dir_, password_;
  int port_ = 0, major_ = 0;
  pid_t pid_ = -1;
  bool as_nobody_ = false, running_ = false;
  // Runs a tool of the server's bin directory as the cluster's owner, in the scratch directory.
  CommandResult Tool(const std::string& name, const std::vector<std::string>& args) const;
  // pg_ctl start on port_ (the -o options and the wait).
  CommandResult StartOnPort() const;
  // Waits for the postmaster to be gone, reaping it; kills it after grace_s.
  bool Gone(int grace_s);
  // Sets pid_ from the cluster's postmaster.pid; whether it names a live process.
  bool ReadPostmasterPid();
  // The watchdog: a shell that waits on a pipe only this process (and its
  // forks) writes to; see the contract.
  bool StartWatchdog(std::string* error);
  void EndWatchdog();
  pid_t watchdog_pid_ = -1;
  int watchdog_fd_ = -1;
};

// The server for a test, or null with *error empty when Debian's postgresql
// is not installed (and RDMASCOPE_PG_BIN not set): the caller then skips, or
// fails in CI (RDMASCOPE_POSTGRES_SERVER below).
std::unique_ptr<PostgresServer> StartPostgresOrNull(std::string* error);

}  // namespace rdmascope::testsupport

// In a TEST body: `var` is a running server; skips (fails in CI, required_tool.h)
// when PostgreSQL is not installed, fails when it does not start.
#define RDMASCOPE_POSTGRES_SERVER(var)                                                                  \
  std::string var##_start_error;                                                                        \
  std::unique_ptr<::rdmascope::testsupport::PostgresServer> var =                                       \
      ::rdmascope::testsupport::StartPostgresOrNull(&var##_start_error);                                \
  if (!var && var##_start_error.empty())                                                                \
    RDMASCOPE_TOOL_MISSING("PostgreSQL server", "postgresql", "the PostgreSQL storage backend's tests"); \
  ASSERT_TRUE(var) << var##_start_error
