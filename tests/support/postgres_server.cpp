// PostgresServer (contract in postgres_server.h).
#include "tests/support/postgres_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <pwd.h>
#include <spawn.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/support/run_command.h"

namespace rdmascope::testsupport {
namespace {

namespace fs = std::filesystem;

constexpr int kToolTimeoutMs = 120000;  // initdb of a fresh cluster takes seconds, more on a loaded machine
constexpr int kStartAttempts = 5;

// The bin directory of the highest PostgreSQL major version installed, or "".
std::string FindBinDir(int* major) {
  if (const char* env = std::getenv("RDMASCOPE_PG_BIN"); env && *env) return env;
  std::error_code ec;
  std::string best;
  for (const fs::directory_entry& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = e.path().filename().string();
    char* end = nullptr;
    const long v = std::strtol(name.c_str(), &end, 10);
    if (end == name.c_str() || *end != '\0' || v <= *major) continue;
    if (!fs::exists(e.path() / "bin" / "initdb", ec)) continue;
    *major = static_cast<int>(v);
    best = (e.path() / "bin").string();
  }
  return best;
}

// A TCP port on 127.0.0.1 that no socket holds now (0: none found).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

std::string RandomPassword() {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string p;
  for (int i = 0; i < 32; ++i) p.push_back(kHex[rd() % 16]);
  return p;
}


std::string Describe(const std::string& step, const CommandResult& r) {
  std::ostringstream m;
  m << step << " failed (" << (r.timed_out ? "timed out" : "exit " + std::to_string(r.exit_code)) << ")";
  if (!r.err.empty()) m << ": " << r.err;
  if (!r.out.empty()) m << " [stdout: " << r.out << "]";
  return m.str();
}

}  // namespace

std::unique_ptr<PostgresServer> PostgresServer::Start(std::string* error) {
  std::unique_ptr<PostgresServer> s(new PostgresServer());
  s->bin_ = FindBinDir(&s->major_);
  if (s->bin_.empty()) {
    *error = "no PostgreSQL server found under /usr/lib/postgresql (Debian package postgresql) "
             "and RDMASCOPE_PG_BIN is not set";
    return nullptr;
  }
  // The postmaster outlives pg_ctl, its parent: as this process's orphan it
  // is reaped here once stopped, not left a zombie of an init that may not reap.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  std::string tmpl = "/tmp/rdmascope-pg.XXXXXX";
  if (!::mkdtemp(tmpl.data())) {
    *error = "mkdtemp " + tmpl + ": " + std::strerror(errno);
    return nullptr;
  }
  s->dir_ = tmpl;  // from here on the destructor removes it
  if (!s->StartWatchdog(error)) return nullptr;
  s->password_ = RandomPassword();
  {
    std::ofstream pw(s->password_file());
    pw << s->password_ << "\n";
    if (!pw.good()) {
      *error = "writing " + s->password_file() + " failed";
      return nullptr;
    }
  }
  ::chmod(s->password_file().c_str(), 0600);
  if (::geteuid() == 0) {
    const passwd* nobody = ::getpwnam("nobody");
    if (!nobody) {
      *error = "running as root and there is no user nobody to run PostgreSQL as";
      return nullptr;
    }
    if (::chown(s->dir_.c_str(), nobody->pw_uid, nobody->pw_gid) != 0 ||
        ::chown(s->password_file().c_str(), nobody->pw_uid, nobody->pw_gid) != 0) {
      *error = "chown " + s->dir_ + " to nobody: " + std::strerror(errno);
      return nullptr;
    }
    s->as_nobody_ = true;
  }
  const std::string data = s->dir_ + "/data";
  CommandResult r = s->Tool("initdb", {"-D", data, "-U", kUser, "--pwfile=" + s->password_file(), "--auth-local=trust",
                                    "--auth-host=scram-sha-256", "--encoding=UTF8", "--no-locale", "--no-sync"});
  if (r.exit_code != 0) {
    *error = Describe("initdb -D " + data, r);
    return nullptr;
  }
  for (int attempt = 1;; ++attempt) {
    s->port_ = FreePort();
    if (s->port_ == 0) {
      *error = std::string("no free TCP port on 127.0.0.1: ") + std::strerror(errno);
      return nullptr;
    }
    r = s->StartOnPort();
    if (r.exit_code == 0) break;
    const std::string tail = s->LogTail();
    const bool port_taken = tail.find("could not bind") != std::string::npos;
    if (!port_taken || attempt == kStartAttempts) {
      std::error_code ec;
      s->running_ = fs::exists(data + "/postmaster.pid", ec);  // half started: the destructor stops it
      *error = Describe("pg_ctl start (port " + std::to_string(s->port_) + ", attempt " + std::to_string(attempt) + ")",
                        r) + "; server log: " + tail;
      return nullptr;
    }
  }
  s->running_ = true;
  if (!s->ReadPostmasterPid()) {
    *error = "the server started but " + data + "/postmaster.pid names no live process; server log: " + s->LogTail();
    return nullptr;
  }
  return s;
}

bool PostgresServer::ReadPostmasterPid() {
  std::ifstream pidfile(dir_ + "/data/postmaster.pid");
  return pidfile >> pid_ && Alive(pid_);
}

// The watchdog's script ($1: the scratch directory). `read` returns when
// the pipe's last writer is gone: Stop() closed it, or this process died
// (a killed test or benchmark). Then a postmaster still running in this
// cluster (its working directory is the cluster's: a stale pid file may name
// a process that took the pid since) is shut down at once (SIGQUIT, the
// immediate mode; SIGKILL when it is still there 10 s later) and the
// directory removed; after a Stop() there is neither.
constexpr const char* kWatchdogScript =
    "read _\n"
    "p=$(head -n 1 \"$1/data/postmaster.pid\" 2>/dev/null)\n"
    "ours() { [ \"$(readlink \"/proc/$p/cwd\" 2>/dev/null)\" = \"$1/data\" ]; }\n"
    "if [ -n \"$p\" ] && ours \"$1\"; then\n"
    "  kill -QUIT \"$p\"; i=0\n"
    "  while ours \"$1\" && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n"
    "  ours \"$1\" && kill -KILL \"$p\"\n"
    "fi\n"
    "rm -rf \"$1\"\n";

bool PostgresServer::StartWatchdog(std::string* error) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe2 for the server's watchdog: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);  // its stdin; the dup has no close-on-exec
  // Nothing else of this process's: it must hold no test runner's output pipe open.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  const std::string dir = dir_;
  const char* argv[] = {"/bin/sh", "-c", kWatchdogScript, "rdmascope-pg-watchdog", dir.c_str(), nullptr};
  // A session of its own: a test runner that kills the test's process group
  // at its timeout leaves the watchdog to do its work.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  const int rc = ::posix_spawn(&watchdog_pid_, "/bin/sh", &actions, &attr, const_cast<char* const*>(argv), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  if (rc != 0) {
    ::close(fds[1]);
    watchdog_pid_ = -1;
    *error = std::string("starting the server's watchdog (/bin/sh): ") + std::strerror(rc);
    return false;
  }
  watchdog_fd_ = fds[1];
  return true;
}

void PostgresServer::EndWatchdog() {
  if (watchdog_fd_ >= 0) ::close(watchdog_fd_);
  watchdog_fd_ = -1;
  if (watchdog_pid_ <= 0) return;
  // It ends at once unless a fork of this process still holds the pipe
  // (then it would wait for that fork): bounded, then killed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (::waitpid(watchdog_pid_, nullptr, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(watchdog_pid_, SIGKILL);
      ::waitpid(watchdog_pid_, nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  watchdog_pid_ = -1;
}

bool PostgresServer::Alive(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');  // "pid (comm) S ...": comm may hold spaces
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z' && line[paren + 2] != 'X';
}

CommandResult PostgresServer::Tool(const std::string& name, const std::vector<std::string>& args) const {
  std::vector<std::string> argv;
  if (as_nobody_) argv = {"runuser", "-u", "nobody", "--"};
  argv.insert(argv.end(), {"env", "-C", dir_, bin_ + "/" + name});
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, kToolTimeoutMs);
}

CommandResult PostgresServer::StartOnPort() const {
  std::string options = "-p " + std::to_string(port_) + " -c listen_addresses=127.0.0.1 -k " + dir_ +
                              " -c fsync=off -c synchronous_commit=off -c full_page_writes=off";
  const char* extra = std::getenv("RDMASCOPE_PG_OPTIONS");  // e.g. to load an extension while profiling
  if (extra && *extra) options += std::string(" ") + extra;
  return Tool("pg_ctl", {"-D", dir_ + "/data", "-l", dir_ + "/server.log", "-w", "-t", "60", "-o", options, "start"});
}

bool PostgresServer::Gone(int grace_s) {
  const auto reap = [this] {  // when the postmaster is this process's orphan (see Start)
    if (pid_ > 0) ::waitpid(pid_, nullptr, WNOHANG);
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(grace_s);
  while (reap(), Alive(pid_) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (!Alive(pid_)) return true;
  ::kill(pid_, SIGKILL);
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (reap(), Alive(pid_) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return false;
}

std::string PostgresServer::Pause() {
  if (!running_) return "the server is not running";
  running_ = false;
  const CommandResult r = Tool("pg_ctl", {"-D", dir_ + "/data", "-m", "fast", "-w", "-t", "30", "stop"});
  std::string failed = r.exit_code == 0 ? "" : Describe("pg_ctl stop", r) + "; server log: " + LogTail();
  if (!Gone(1) && failed.empty()) failed = "the postmaster (pid " + std::to_string(pid_) + ") outlived pg_ctl stop: killed";
  return failed;
}

std::string PostgresServer::Resume() {
  if (running_) return "the server is running";
  const CommandResult r = StartOnPort();
  if (r.exit_code != 0) return Describe("pg_ctl start (port " + std::to_string(port_) + ")", r) + "; server log: " + LogTail();
  running_ = true;
  if (!ReadPostmasterPid()) return "the server started again but its postmaster.pid names no live process";
  return "";
}

PostgresServer::~PostgresServer() { Stop(); }

std::string PostgresServer::Stop() {
  std::string failed;
  if (running_) failed = Pause();
  else if (pid_ > 0 && !Gone(1)) failed = "the postmaster (pid " + std::to_string(pid_) + ") was still there: killed";
  pid_ = -1;
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    if (ec && failed.empty()) failed = "removing " + dir_ + ": " + ec.message();
    dir_.clear();
  }
  EndWatchdog();  // with nothing left to stop or remove, it exits at once
  return failed;
}

std::string PostgresServer::Url(const std::string& db) const {
  return std::string("postgresql://") + kUser + "@127.0.0.1:" + std::to_string(port_) + "/" + db;
}

std::string PostgresServer::SocketConninfo(const std::string& db) const {
  return "host=" + dir_ + " port=" + std::to_string(port_) + " user=" + kUser + " dbname=" + db;
}

std::string PostgresServer::LogTail() const {
  std::ifstream in(dir_ + "/server.log");
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > 15) lines.pop_front();
  }
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out.empty() ? "(empty)" : out;
}

std::unique_ptr<PostgresServer> StartPostgresOrNull(std::string* error) {
  std::error_code ec;
  if (!std::getenv("RDMASCOPE_PG_BIN") && !fs::exists("/usr/lib/postgresql", ec)) return nullptr;
  return PostgresServer::Start(error);
}

}  // namespace rdmascope::testsupport
