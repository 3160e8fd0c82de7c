// Following the other collectors' commits (contract in pg_follower.h).
#include "collector/store/pg_follower.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <utility>

#include "collector/store/pg_db.h"
#include "collector/store/pg_locks.h"

namespace rdmascope::collector {

PgCommitFollower::PgCommitFollower(Storage& store, std::string target, std::string password,
                                   std::function<void(const std::string&)> log)
    : store_(store), target_(std::move(target)), password_(std::move(password)), log_(std::move(log)) {}

void PgCommitFollower::Start() {
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void PgCommitFollower::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void PgCommitFollower::Note(const std::string& what) {
  if (what == last_note_) return;
  last_note_ = what;
  log_(what);
}

void PgCommitFollower::Follow(const std::vector<CommittedReport>& reports, const std::set<std::string>& bare_nodes,
                              bool fabric) {
  FabricChange change;
  change.leaves = change.parts = fabric;
  std::lock_guard<std::mutex> lock(store_.db.mu());
  if (Status s = store_.loader.FollowCommit(reports, bare_nodes, change); !s.ok())
    Note("following the other collectors' commits: " + s.message());
  else
    followed_ += 1;
}

void PgCommitFollower::Rebuild() {
  std::lock_guard<std::mutex> lock(store_.db.mu());
  store_.loader.MarkDirty();  // FollowCommit of nothing then loads the model whole
  if (Status s = store_.loader.FollowCommit({}, {}, FabricChange{true, true}); !s.ok())
    Note("rebuilding the read model from the database: " + s.message());
}

void PgCommitFollower::Run() {
  using Clock = std::chrono::steady_clock;
  int64_t backoff_ms = 0;
  while (!stop_) {
    if (backoff_ms > 0) {
      const auto until = Clock::now() + std::chrono::milliseconds(backoff_ms);
      while (!stop_ && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
      if (stop_) return;
    }
    auto db = PgDb::Connect(target_, password_);
    if (!db.ok()) {
      Note("following the other collectors' commits: " + db.status().message());
      backoff_ms = std::min<int64_t>(10000, backoff_ms > 0 ? 2 * backoff_ms : 1000);
      continue;
    }
    if (Status s = db.value().Exec(std::string("LISTEN ") + kPgCommitChannel); !s.ok()) {
      Note("following the other collectors' commits: LISTEN failed: " + s.message());
      backoff_ms = std::min<int64_t>(10000, backoff_ms > 0 ? 2 * backoff_ms : 1000);
      continue;
    }
    backoff_ms = 0;
    if (!last_note_.empty()) Note("following the other collectors' commits again");
    Rebuild();  // what was committed while this collector was not listening
    PGconn* c = db.value().raw();
    std::vector<CommittedReport> reports;
    std::set<std::string> bare_nodes;
    bool fabric = false;
    Clock::time_point first{};
    while (!stop_) {
      pollfd p{PQsocket(c), POLLIN, 0};
      const bool gathering = !reports.empty() || !bare_nodes.empty();
      const int wait = gathering ? kBatchMs : kPollMs;
      if (::poll(&p, 1, wait) < 0 && errno != EINTR) break;
      if (PQconsumeInput(c) == 0) break;  // the connection failed
      while (PGnotify* n = PQnotifies(c)) {
        CommitAnnouncement a = DecodeCommitAnnouncement(n->extra);
        PQfreemem(n);
        if (a.writer == store_.db.instance_id()) continue;
        if (reports.empty() && bare_nodes.empty()) first = Clock::now();
        fabric = fabric || a.fabric;
        for (CommittedReport& r : a.reports) reports.push_back(std::move(r));
        bare_nodes.insert(a.bare_nodes.begin(), a.bare_nodes.end());
      }
      if ((!reports.empty() || !bare_nodes.empty()) && Clock::now() - first >= std::chrono::milliseconds(kBatchMs)) {
        Follow(reports, bare_nodes, fabric);
        reports.clear();
        bare_nodes.clear();
        fabric = false;
      }
    }
    if (!stop_) {
      Note("following the other collectors' commits: the connection to " + db.value().server() +
           " was lost: " + PQerrorMessage(c));
      backoff_ms = 1000;
    }
  }
}

}  // namespace rdmascope::collector
