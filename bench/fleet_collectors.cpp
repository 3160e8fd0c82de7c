#include "bench/fleet_collectors.h"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "bench/bench_server.h"
#include "collector/http/api_server.h"
#include "collector/service/retention_worker.h"
#include "collector/service/storage_open.h"

namespace rdmascope::collector::bench {
namespace {

void WriteAll(int fd, const std::string& s) {
  for (size_t at = 0; at < s.size();) {
    const ssize_t n = write(fd, s.data() + at, s.size() - at);
    if (n <= 0) return;
    at += static_cast<size_t>(n);
  }
}

// The child: one collector until SIGTERM. Writes "P<port>" or "E<what
// failed>" to fd once serving (or not), then _exits: no destructor of the
// tool's own objects runs in it.
[[noreturn]] void RunCollectorChild(int index, int fd, const std::string& db, const std::string& password_file,
                                    const FleetArgs& a, std::atomic<int64_t>* clock, pid_t parent) {
  // Dies with the tool, even killed: nothing outlives it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the tool died before the line above
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);  // before any thread: sigwait below takes it
  const std::string name = "collector " + std::to_string(index);
  auto log = [name](const std::string& line) { std::fprintf(stderr, "%s: %s\n", name.c_str(), line.c_str()); };
  auto now = [clock] { return clock->load(); };
  CollectorConfig c;
  c.db = db;
  c.db_password_file = password_file;
  auto store = OpenCollectorStorage(c, StoreOptions{}, now());
  if (!store.ok()) {
    WriteAll(fd, "E" + store.status().message());
    _exit(1);
  }
  ApiOptions ao;
  ao.tokens = {kFleetToken};
  ao.log = [](const std::string&) {};
  ao.http_workers = static_cast<size_t>(a.http_workers);
  ao.http_max_queued = static_cast<size_t>(std::max(a.clients * 4, a.paced_senders));
  ao.http_max_per_client = static_cast<size_t>(2 * std::max(a.clients, a.paced_senders));
  ao.max_body_bytes = 64u << 20;
  ao.pinglist.max_targets = a.targets;
  ao.now_ms = now;
  std::optional<ApiServer> server;
  server.emplace(*store.value(), ao);
  std::thread serving;
  const int port = ServeInBackground(*server, &serving);
  if (port < 0) {
    WriteAll(fd, "Ethe collector did not serve on loopback");
    _exit(1);
  }
  SharedDatabase shared = OpenSharedDatabase(c, *store.value(), log);
  if (shared.follower) shared.follower->Start();
  CollectorMetrics& metrics = server->metrics();
  std::function<bool()> lead = [l = shared.leadership.get(), &metrics] {
    const bool leads = l->Lead();
    metrics.SetLeader(leads);
    return leads;
  };
  RetentionPolicy policy;
  policy.rollup_slice_ms = a.rollup_slice_ms;
  RetentionWorker retention(*store.value(), policy, 1000, now, log, &metrics);
  retention.SetLead(lead);
  retention.Start();
  WriteAll(fd, "P" + std::to_string(port));
  close(fd);
  int signal = 0;
  sigwait(&stop, &signal);
  retention.Stop();
  if (shared.follower) shared.follower->Stop();
  server->Stop();
  serving.join();
  server.reset();
  store.value().reset();
  std::fflush(stderr);
  _exit(0);
}

// What the child wrote to fd before closing it, waiting at most timeout_ms.
std::string ReadUntilClosed(int fd, int timeout_ms) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return out;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buf[512];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

ForkedCollectors::ForkedCollectors() {
  void* m = mmap(nullptr, sizeof(std::atomic<int64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m != MAP_FAILED) clock_ = new (m) std::atomic<int64_t>(kFleetStartMs);
}

ForkedCollectors::~ForkedCollectors() {
  Stop();
  if (clock_) munmap(clock_, sizeof(std::atomic<int64_t>));
}

Result<std::vector<int>> ForkedCollectors::Start(int n, const std::string& db, const std::string& password_file,
                                                 const FleetArgs& a) {
  static_assert(std::atomic<int64_t>::is_always_lock_free, "the shared clock is a plain word in shared memory");
  if (!clock_) return Status::Error("mmap of the shared clock failed");
  std::vector<int> ports;
  for (int i = 0; i < n; ++i) {
    int fds[2];
    if (pipe(fds) != 0) {
      Stop();
      return Status::Error("pipe failed");
    }
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]), close(fds[1]);
      Stop();
      return Status::Error("fork failed");
    }
    if (pid == 0) {
      close(fds[0]);
      RunCollectorChild(i, fds[1], db, password_file, a, clock_, parent);
    }
    close(fds[1]);
    pids_.push_back(pid);
    const std::string said = ReadUntilClosed(fds[0], 120000);
    close(fds[0]);
    if (said.size() < 2 || said[0] != 'P') {
      Stop();
      return Status::Error("collector " + std::to_string(i) + " did not start: " +
                           (said.empty() ? std::string("no answer within 120 s") : said.substr(1)));
    }
    ports.push_back(std::stoi(said.substr(1)));
  }
  return ports;
}

void ForkedCollectors::Kill(size_t i, int signal) {
  if (i < pids_.size() && pids_[i] > 0) kill(pids_[i], signal);
}

void ForkedCollectors::Stop() {
  for (pid_t pid : pids_)
    if (pid > 0) kill(pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (pid_t& pid : pids_) {
    while (pid > 0) {
      const pid_t done = waitpid(pid, nullptr, WNOHANG);
      if (done == pid || done < 0) {
        pid = -1;
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) kill(pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  pids_.clear();
}

}  // namespace rdmascope::collector::bench
