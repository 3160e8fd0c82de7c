// The collector's HTTP API on cpp-httplib.
//
// Contract:
//  - The front (http_front.h) reads every request head under limits and
//    caps connections per client before a worker sees it; see its contract
//    for the 408/414/431/503 it answers itself.
//  - Every route first passes GuardRequest (request_guard.h), before any body
//    byte is read: no body except on POST /api/v1/reports, no chunked or
//    length-less bodies, no Content-Encoding, no Range.
//  - POST /api/v1/reports: 401 without a valid bearer token (unless auth is
//    off), 411 without Content-Length, 413 over max_body_bytes, 415 for a
//    compressed body, 400 for invalid JSON (incl. nesting deeper than 32) or a
//    schema violation naming the field, 200 {"stored":true}
//    or 200 {"duplicate":true} for a report id stored before, 500 when the
//    store fails (nothing of the report is kept), 503 when the storage does
//    (disk full, --db-max-bytes reached, damaged or failing database: the
//    answer says which and what to do; /healthz then answers 503 too, until a
//    write succeeds).
//  - GET endpoints under /api/v1 (nodes, nodes/{name}, ports, counters,
//    probes, probes/worst, events, pinglist, matrix, diagnoses, fabric/*
//    including fabric/path), /healthz, /metrics.
//  - With read tokens, every other route but /healthz answers 401 (with a
//    Basic challenge, so browsers prompt) unless ReadAuthorized; pinglists
//    also accept the agents' report tokens.
//  - Token roles (api_auth.h, report_roles.h): a report is stored only when
//    its token may say all of it (else 403, nothing stored); a node's report
//    token reads only that node's pinglist (403 for another node).
//  - With tls_cert/tls_key the server speaks HTTPS only.
//  - Every error body is {"error": "...", "detail": ...}.
//  - / serves the dashboard: web_dir when set, else the files embedded at
//    build time (api_web.cpp).
//  - Handlers never throw out to the server; a failure becomes a 500.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <httplib.h>

#include "collector/http/api_auth.h"
#include "collector/metrics/collector_metrics.h"
#include "collector/readmodel/pinglist_cache.h"
#include "collector/ingest/group_commit.h"
#include "collector/http/http_front.h"
#include "collector/http/http_workers.h"
#include "collector/store/storage_fault.h"
#include "collector/store/storage.h"

namespace rdmascope::collector {

struct ApiOptions {
  std::vector<NodeToken> tokens;     // accepted bearer tokens and the node each may report as
  bool auth = true;                  // false only with --no-auth
  std::vector<NodeToken> read_tokens;  // non-empty: reading (all but /healthz) needs one of them
  std::string tls_cert, tls_key;       // both set: HTTPS (PEM files); Bind fails when they do not load
  size_t max_body_bytes = 4u << 20;  // 4 MiB
  // A report naming more distinct probe destinations is refused (422).
  size_t max_destinations_per_node = 1024;
  std::string web_dir;               // dashboard files; empty: the embedded copy
  int64_t stale_after_ms = 120 * 1000;
  int64_t metrics_drop_after_ms = 3600LL * 1000;  // a node silent longer leaves /metrics; <= 0: never
  size_t http_workers = kDefaultHttpWorkers;  // threads serving connections (see http_workers.h)
  size_t http_max_queued = 256;  // requests waiting beyond this are answered 503 at once
  time_t http_timeout_s = 10;    // each read and write; the body must have arrived within it after the head
  int64_t http_head_timeout_ms = 10000;  // request line and headers complete within this of connecting
  size_t http_max_connections = 4096;    // open connections at once (reading, waiting, served)
  size_t http_max_per_client = 64;       // of them from one client address
  HeadLimits http_head;                  // request line, header line, head and header-count caps
  int64_t clock_skew_tolerance_ms = 5LL * 60 * 1000;  // agent clock beyond ±this: stored at receive time
  int64_t clock_skew_refuse_ms = 86400LL * 1000;      // beyond ±this: refused (400), nothing stored
  int metrics_worst_pairs = 20;
  int64_t metrics_probe_window_ms = 15LL * 60 * 1000;  // pairs newer than this feed /metrics
  PinglistOptions pinglist;
  // Pinglist plans are shared for this long: a report shows in the others'
  // pinglists within it (readmodel/pinglist_cache.h); <= 0: a plan per request.
  int64_t pinglist_refresh_ms = 1000;
  std::function<int64_t()> now_ms;  // clock; defaults to the system clock
  std::function<void(const std::string&)> log;  // one line per event; default stderr
};

class ApiServer {
 public:
  // `store` must outlive this object, not only Stop(): the group committer
  // the server owns (its writer, publisher and checkpoint threads) uses the
  // store until the destructor joins them.
  ApiServer(Storage& store, ApiOptions options);
  ~ApiServer();

  // Binds host:port (port 0: an ephemeral port); returns the bound port or an
  // error (also when the TLS certificate or key cannot be loaded).
  Result<int> Bind(const std::string& host, int port);
  // Serves until Stop(); returns when the server has stopped and in-flight
  // requests finished. False when serving failed (not after Stop()).
  bool Listen();
  void Stop();
  bool WaitUntilReady(int timeout_ms) const;

  const CollectorMetrics& metrics() const { return metrics_; }
  CollectorMetrics& metrics() { return metrics_; }  // for the workers that count into /metrics

 private:
  void Routes();
  void WebRoutes();  // api_web.cpp
  void PostReport(const httplib::Request& req, httplib::Response& res);
  // Moves a report's times back so none is ahead of the collector's clock
  // (api_reports.cpp); the shift when there was one.
  std::optional<int64_t> ShiftTimesAhead(nlohmann::json& report, std::vector<ProbeInput>& probes,
                                         std::optional<int64_t> skew, int64_t now, const std::string& node) const;
  void GetNodes(const httplib::Request& req, httplib::Response& res);
  void GetNode(const httplib::Request& req, httplib::Response& res);
  void GetPorts(const httplib::Request& req, httplib::Response& res);  // api_ports.cpp
  void GetCounters(const httplib::Request& req, httplib::Response& res);
  void GetProbes(const httplib::Request& req, httplib::Response& res);
  void GetProbeRollups(const httplib::Request& req, httplib::Response& res);
  void GetWorstPairs(const httplib::Request& req, httplib::Response& res);
  void GetEvents(const httplib::Request& req, httplib::Response& res);
  void GetPinglist(const httplib::Request& req, httplib::Response& res);
  void GetDiagnoses(const httplib::Request& req, httplib::Response& res);
  void GetCoverage(const httplib::Request& req, httplib::Response& res);
  void GetMatrix(const httplib::Request& req, httplib::Response& res);  // api_dashboard.cpp
  void GetFabricNodes(const httplib::Request& req, httplib::Response& res);  // api_fabric.cpp
  void GetFabricLinks(const httplib::Request& req, httplib::Response& res);
  void GetFabricErrors(const httplib::Request& req, httplib::Response& res);
  void GetFabricNeighbours(const httplib::Request& req, httplib::Response& res);
  void GetFabricPath(const httplib::Request& req, httplib::Response& res);  // api_fabric_path.cpp
  void GetHealth(const httplib::Request& req, httplib::Response& res);
  void GetMetrics(const httplib::Request& req, httplib::Response& res);
  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res);
  int64_t Now() const;

  Storage& store_;
  std::unique_ptr<GroupCommitter> committer_;  // every report ingest goes through its writer thread
  ApiOptions options_;
  PinglistCache pinglists_;  // the rails' pinglist plans, shared by the fleet's requests
  CollectorMetrics metrics_;
  StorageHealth storage_health_;  // the newest report write's storage fault, for 503s and /healthz
  // Routes and handlers; fed one connection at a time by the front's workers.
  class RoutingServer : public httplib::Server {
   public:
    void Serve(httplib::Stream& stream);
    // The library writes a body from a content provider only while its own
    // listening socket is set (unset means "shutting down"); the front owns
    // the real one, so the library is given a mark while the front serves.
    void SetServing(bool serving) { svr_sock_ = serving ? kServingMark : INVALID_SOCKET; }

   private:
    static constexpr socket_t kServingMark = 0;  // never closed or used as a socket by the library here
  };
  std::unique_ptr<RoutingServer> server_;
  Result<std::shared_ptr<TlsContext>> tls_ = std::shared_ptr<TlsContext>();
  std::unique_ptr<HttpFront> front_;
};

// Writes {"error": error, "detail": detail} with `status`.
void SendError(httplib::Response& res, int status, const std::string& error, const nlohmann::json& detail);
void SendJson(httplib::Response& res, const nlohmann::json& body);

}  // namespace rdmascope::collector
