// Reporter: delivers reports to the collector, spooling what cannot be
// delivered now and replaying the spool oldest-first once the collector
// answers again.
//
// Contract:
// - Post: POST <collector><prefix>/api/v1/reports with
//   "Authorization: Bearer <token>" (no header when no token file is
//   configured), connection timeout and read/write timeouts as configured.
//   The answer is classified:
//     2xx                          delivered
//     no answer (refused, timeout), 5xx, 408, 429,
//     401/403 (token rejected), other non-4xx answers   retry later
//     any other 4xx                rejected: the collector refuses the report
//                                  itself; it is dropped and counted, never retried
//   A rejected token is logged as "token rejected" naming the token file; the
//   reports are kept in the spool (bounded by its cap) so that they are
//   delivered once the token is fixed, and the token file is read again before
//   the next attempt, so a rotated token needs no restart.
// - Submit: backlog first: when the spool holds reports it is drained (oldest
//   first) until the deadline; the fresh report is posted only once the spool
//   is empty, else it joins the spool behind the older ones (outcome "retry",
//   detail "queued behind N ..."). On "retry later" it goes to the spool.
// - Drain: replays the oldest spool entries in order, at most
//   max_replay_per_cycle per call, until the deadline, *stop, or the first
//   "retry later" answer. A spool file is deleted only after a 2xx (or a
//   rejection). Corrupt spool files are skipped (the spool removes them).
// - Several collectors (options.collector a comma-separated list, collectors
//   sharing one database): Post sends to the current one; when it gives no
//   answer or answers 5xx, the next in the list (wrapping around) becomes
//   current and the report is posted there, each collector tried at most
//   once per Post. The one that answered stays current. A report the first
//   collector stored although its answer was lost is a duplicate to the
//   next (same report_id), stored once.
// - Failures are logged once per change of cause, not once per attempt; the
//   first delivery after failures logs that the collector is reachable again;
//   a move to another collector is logged with its cause.
// Not thread-safe: one owner (the daemon loop) uses it. It never throws.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/daemon/daemon_log.h"
#include "agent/client/collector_url.h"
#include "agent/daemon/spool.h"
#include "common/status.h"

namespace httplib {
class Client;
}

namespace rdmascope::agent {

constexpr char kReportsPath[] = "/api/v1/reports";

struct ReporterOptions {
  std::string collector;   // base URL, or several comma-separated (ParseCollectorUrls)
  std::string token_file;  // "" = no token
  std::string ca_file;     // https: the CA that signed the collector's certificate; "" = system store
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds io_timeout{5000};
  size_t max_replay_per_cycle = 50;
};

enum class Delivery { kDelivered, kRetry, kRejected };

struct PostOutcome {
  Delivery delivery = Delivery::kRetry;
  int http_status = 0;  // 0: no answer
  std::string detail;   // the transport error, or the collector's error text
};

struct ReporterStats {
  uint64_t delivered = 0;  // fresh reports delivered
  uint64_t replayed = 0;   // spooled reports delivered
  uint64_t spooled = 0;    // fresh reports written to the spool
  uint64_t rejected = 0;   // reports the collector refused (4xx), dropped
  uint64_t lost = 0;       // reports neither delivered nor spooled (spool write failed)
};

class Reporter {
 public:
  // Fails on a bad collector URL or an unreadable/empty token file.
  static Result<std::unique_ptr<Reporter>> Create(const ReporterOptions& options, Spool* spool,
                                                  LogFn log = nullptr);
  ~Reporter();

  PostOutcome Post(const std::string& body);
  PostOutcome Submit(const std::string& report_id, const std::string& body,
                     std::chrono::steady_clock::time_point drain_deadline,
                     const std::atomic<bool>* stop = nullptr);
  // Returns the number of spool entries taken out of the queue (delivered or rejected).
  size_t Drain(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* stop = nullptr);

  const ReporterStats& stats() const { return stats_; }

 private:
  struct Endpoint {
    client::CollectorUrl url;
    std::unique_ptr<httplib::Client> client;
  };
  Reporter(ReporterOptions options, Spool* spool, LogFn log);
  // One POST to endpoint i, classified.
  PostOutcome PostTo(size_t i, const std::string& body);
  std::string Collectors() const;  // every collector's scheme://host:port, for logs
  Status LoadToken();
  void NoteOutcome(const std::string& report_id, const PostOutcome& outcome);
  PostOutcome last_drain_;  // the answer to the last replayed report
  // Puts a fresh report in the spool, counting it as spooled or lost.
  void SpoolFresh(const std::string& report_id, const std::string& body);

  ReporterOptions options_;
  Spool* spool_;
  LogFn log_;
  std::vector<Endpoint> endpoints_;  // in the list's order
  size_t current_ = 0;               // the one Post tries first
  std::string token_;
  bool reload_token_ = false;
  std::string last_failure_;  // cause of the last "retry later", "" after a delivery
  ReporterStats stats_;
};

}  // namespace rdmascope::agent
