// The real PostgreSQL server the storage backend's tests run against
// (tests/support/postgres_server.h): it starts from Debian's package as an
// unprivileged user, takes a password over TCP and none over its own socket,
// loads rows by COPY, two run side by side on different ports, and nothing
// is left once it stops (no postmaster, no directory), nor once its owner
// is killed.
#include <libpq-fe.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/postgres_server.h"

namespace rdmascope::testsupport {
namespace {

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;
struct ResultClearer {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Res = std::unique_ptr<PGresult, ResultClearer>;

Conn Connect(const std::string& conninfo) { return Conn(PQconnectdb(conninfo.c_str())); }


TEST(PostgresServer, PasswordOverTcpNoneOverItsSocket) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  EXPECT_GE(pg->major_version(), 15);
  EXPECT_GT(pg->port(), 0);

  Conn without = Connect(pg->Url() + "?connect_timeout=10");
  EXPECT_NE(PQstatus(without.get()), CONNECTION_OK) << "TCP without a password must be refused";
  EXPECT_NE(std::string(PQerrorMessage(without.get())).find("password"), std::string::npos)
      << PQerrorMessage(without.get());

  Conn wrong = Connect(pg->Url() + "?connect_timeout=10&password=not-it");
  EXPECT_NE(PQstatus(wrong.get()), CONNECTION_OK);

  Conn tcp = Connect(pg->Url() + "?connect_timeout=10&password=" + pg->password());
  ASSERT_EQ(PQstatus(tcp.get()), CONNECTION_OK) << PQerrorMessage(tcp.get());
  EXPECT_GE(PQserverVersion(tcp.get()), 150000);

  Conn local = Connect(pg->SocketConninfo() + " connect_timeout=10");
  ASSERT_EQ(PQstatus(local.get()), CONNECTION_OK) << PQerrorMessage(local.get());
  Res who(PQexec(local.get(), "SELECT current_user, inet_server_addr() IS NULL"));
  ASSERT_EQ(PQresultStatus(who.get()), PGRES_TUPLES_OK) << PQerrorMessage(local.get());
  EXPECT_STREQ(PQgetvalue(who.get(), 0, 0), PostgresServer::kUser);
  EXPECT_STREQ(PQgetvalue(who.get(), 0, 1), "t") << "a unix-socket connection has no server address";
}

TEST(PostgresServer, CopyLoadsRowsAndStopLeavesNothing) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  const pid_t postmaster = pg->postmaster_pid();
  const std::string dir = pg->dir();
  ASSERT_TRUE(PostgresServer::Alive(postmaster));
  {
    Conn c = Connect(pg->SocketConninfo() + " connect_timeout=10");
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    Res made(PQexec(c.get(), "CREATE TABLE probes (src text NOT NULL, dst text NOT NULL, rtt_us double precision)"));
    ASSERT_EQ(PQresultStatus(made.get()), PGRES_COMMAND_OK) << PQerrorMessage(c.get());
    Res copy(PQexec(c.get(), "COPY probes (src, dst, rtt_us) FROM STDIN"));
    ASSERT_EQ(PQresultStatus(copy.get()), PGRES_COPY_IN) << PQerrorMessage(c.get());
    std::string rows;
    for (int i = 0; i < 10000; ++i)
      rows += "node" + std::to_string(i % 100) + "\tnode" + std::to_string(i % 37) + "\t" + std::to_string(i) + ".5\n";
    ASSERT_EQ(PQputCopyData(c.get(), rows.data(), static_cast<int>(rows.size())), 1) << PQerrorMessage(c.get());
    ASSERT_EQ(PQputCopyEnd(c.get(), nullptr), 1) << PQerrorMessage(c.get());
    Res done(PQgetResult(c.get()));
    ASSERT_EQ(PQresultStatus(done.get()), PGRES_COMMAND_OK) << PQerrorMessage(c.get());
    EXPECT_STREQ(PQcmdTuples(done.get()), "10000");
    Res sum(PQexec(c.get(), "SELECT count(*), count(DISTINCT src), sum(rtt_us) FROM probes"));
    ASSERT_EQ(PQresultStatus(sum.get()), PGRES_TUPLES_OK) << PQerrorMessage(c.get());
    EXPECT_STREQ(PQgetvalue(sum.get(), 0, 0), "10000");
    EXPECT_STREQ(PQgetvalue(sum.get(), 0, 1), "100");
    EXPECT_STREQ(PQgetvalue(sum.get(), 0, 2), "50000000");  // sum of i + 0.5 for i < 10000
  }
  EXPECT_EQ(pg->Stop(), "");
  std::error_code ec;
  EXPECT_FALSE(PostgresServer::Alive(postmaster)) << "the postmaster outlived Stop()";
  EXPECT_FALSE(std::filesystem::exists("/proc/" + std::to_string(postmaster), ec))
      << "the postmaster was not reaped: a zombie is left";
  EXPECT_FALSE(std::filesystem::exists(dir, ec)) << dir << " outlived Stop()";
}

// A test killed past its timeout never reaches Stop(): the server's
// watchdog shuts it down and removes its directory.
TEST(PostgresServer, AKilledOwnerLeavesNothing) {
  std::error_code ec;
  if (!std::getenv("RDMASCOPE_PG_BIN") && !std::filesystem::exists("/usr/lib/postgresql", ec))
    RDMASCOPE_TOOL_MISSING("PostgreSQL server", "postgresql", "the PostgreSQL storage backend's tests");
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // the orphans (postmaster, watchdog) are reaped here
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const pid_t owner = ::fork();
  ASSERT_GE(owner, 0);
  if (owner == 0) {  // the owner: starts a server, says its postmaster and directory, waits to be killed
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // and dies with the test, should the test die first
    if (::getppid() == 1) ::_exit(1);
    ::close(fds[0]);
    std::string error;
    std::unique_ptr<PostgresServer> s = PostgresServer::Start(&error);
    const std::string said = s ? std::to_string(s->postmaster_pid()) + " " + s->dir() + "\n" : "0 " + error + "\n";
    if (::write(fds[1], said.data(), said.size()) < 0) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  std::string said;
  char buf[512];
  for (ssize_t n; said.find('\n') == std::string::npos && (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    said.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  ::kill(owner, SIGKILL);
  ::waitpid(owner, nullptr, 0);
  const pid_t postmaster = static_cast<pid_t>(std::atol(said.c_str()));
  const size_t space = said.find(' '), end = said.find('\n');
  const std::string dir = space < end ? said.substr(space + 1, end - space - 1) : said;
  ASSERT_GT(postmaster, 0) << "the owner's server did not start: " << dir;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while ((PostgresServer::Alive(postmaster) || std::filesystem::exists(dir, ec)) &&
         std::chrono::steady_clock::now() < deadline) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const bool postmaster_left = PostgresServer::Alive(postmaster), dir_left = std::filesystem::exists(dir, ec);
  EXPECT_FALSE(postmaster_left) << "the postmaster outlived its killed owner by 30 s";
  EXPECT_FALSE(dir_left) << dir << " outlived its killed owner by 30 s";
  if (postmaster_left) ::kill(postmaster, SIGKILL);  // a failed run leaves nothing either
  if (dir_left) std::filesystem::remove_all(dir, ec);
  // The orphans this process adopted (the postmaster, the watchdog): reaped.
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
       ::waitpid(-1, nullptr, WNOHANG) >= 0 && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

TEST(PostgresServer, TwoSideBySide) {
  RDMASCOPE_POSTGRES_SERVER(a);
  std::string second_error;
  std::unique_ptr<PostgresServer> b = PostgresServer::Start(&second_error);
  ASSERT_TRUE(b) << second_error;
  EXPECT_NE(a->port(), b->port());
  EXPECT_NE(a->dir(), b->dir());
  for (PostgresServer* s : {a.get(), b.get()}) {
    Conn c = Connect(s->Url() + "?connect_timeout=10&password=" + s->password());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    Res port(PQexec(c.get(), "SHOW port"));
    ASSERT_EQ(PQresultStatus(port.get()), PGRES_TUPLES_OK);
    EXPECT_EQ(std::string(PQgetvalue(port.get(), 0, 0)), std::to_string(s->port()));
  }
}

}  // namespace
}  // namespace rdmascope::testsupport
