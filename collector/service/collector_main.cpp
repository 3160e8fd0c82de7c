// rdmascope-collector: receives agent reports, stores them, serves the API.
//
// Exit codes: 0 after SIGTERM/SIGINT (server stopped, current requests
// finished, database closed), 2 on a bad option or a startup failure (the
// message names what failed). Logs one line per event to stderr.
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collector/http/api_auth.h"
#include "collector/http/api_server.h"
#include "collector/service/collector_config.h"
#include "collector/core/heap_release.h"
#include "collector/diagnosis/diagnosis_worker.h"
#include "collector/readmodel/roce_topology.h"
#include "collector/service/retention_worker.h"
#include "collector/service/service_watchdog.h"
#include "collector/service/storage_open.h"
#include "collector/store/storage.h"
#include "common/http_date.h"
#include "common/sd_notify.h"
#include "common/version.h"

namespace {

using namespace rdmascope::collector;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Log(const std::string& line) {
  // Called from any thread (HTTP workers, retention, the signal waiter).
  std::fprintf(stderr, "%s rdmascope-collector: %s\n", rdmascope::FormatUtcTimestamp(NowMs()).c_str(), line.c_str());
}

int Fail(const std::string& message) {
  Log(message);
  return 2;
}

// Fills api's tokens from c: refuses to start without authentication unless
// --no-auth. An error names what is wrong.
rdmascope::Status LoadApiTokens(const CollectorConfig& c, ApiOptions* api) {
  if (c.no_auth) {
    api->auth = false;
    Log("authentication is OFF (--no-auth): any client can post reports");
  } else if (c.token_file.empty()) {
    return rdmascope::Status::Error(
        "refusing to start without authentication: give --token-file FILE (lines `NODE TOKEN`, "
        "`sweep NODE TOKEN` or `* TOKEN`), or --no-auth to accept reports from anyone (trusted networks "
        "only)");
  } else {
    auto tokens = LoadTokenFile(c.token_file);
    if (!tokens.ok()) return tokens.status();
    api->tokens = tokens.value();
  }
  if (!c.read_token_file.empty()) {
    auto tokens = LoadTokenFile(c.read_token_file);
    if (!tokens.ok()) return tokens.status();
    api->read_tokens = tokens.value();
  }
  return rdmascope::Status::Ok();
}

// The API server's options from c: authentication, TLS, web assets, limits
// and the rules' tolerances. An error names what is wrong.
rdmascope::Status BuildApiOptions(const CollectorConfig& c, ApiOptions* api) {
  if (rdmascope::Status st = LoadApiTokens(c, api); !st.ok()) return st;
  api->tls_cert = c.tls_cert;
  api->tls_key = c.tls_key;
  if (!c.web_dir.empty()) {
    struct stat st {};
    if (::stat(c.web_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return rdmascope::Status::Error("--web-dir " + c.web_dir + " is not a directory");
    api->web_dir = c.web_dir;
  }
  api->max_body_bytes = static_cast<size_t>(c.max_body_bytes);
  api->http_workers = static_cast<size_t>(c.http_workers);
  api->http_max_connections = static_cast<size_t>(c.http_max_connections);
  api->http_max_per_client = static_cast<size_t>(c.http_max_per_client);
  api->http_head_timeout_ms = c.http_head_timeout_ms;
  api->stale_after_ms = c.stale_after_s * 1000;
  api->metrics_drop_after_ms = c.metrics_drop_after_s * 1000;
  api->clock_skew_tolerance_ms = c.clock_skew_tolerance_s * 1000;
  api->clock_skew_refuse_ms = c.clock_skew_refuse_s * 1000;
  api->metrics_worst_pairs = static_cast<int>(c.metrics_worst_pairs);
  api->pinglist.group_label = c.pinglist_group_label;
  api->pinglist.max_targets = static_cast<int>(c.pinglist_max_targets);
  api->pinglist.sources_per_group_pair = static_cast<int>(c.pinglist_sources_per_group_pair);
  api->pinglist.rotation_ms = c.pinglist_rotation_s * 1000;
  api->pinglist.max_age_ms = c.pinglist_max_age_s * 1000;
  api->max_destinations_per_node = static_cast<size_t>(c.max_destinations_per_node);
  api->log = Log;
  return rdmascope::Status::Ok();
}

// Blocks SIGTERM and SIGINT (for the thread that waits for them; call before
// any thread starts) and ignores SIGPIPE. Returns the blocked set.
sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

StoreOptions StorageOptionsOf(const CollectorConfig& c) {
  StoreOptions so;
  so.path = c.db;
  so.synchronous_full = c.db_synchronous_full;
  so.max_bytes = c.db_max_bytes;
  so.query_deadline_ms = c.query_deadline_ms;
  so.max_destinations_per_node = static_cast<size_t>(c.max_destinations_per_node);
  so.log = Log;
  // Each beat gives the start another minute: a migration of a large
  // database outlasts the service manager's start timeout otherwise.
  so.migration_heartbeat.beat = [] {
    static bool said = false;
    if (!said) Log("migrating the database schema; this can take minutes on a large database");
    said = true;
    (void)rdmascope::SdNotify("EXTEND_TIMEOUT_USEC=60000000\nSTATUS=migrating the database schema");
  };
  return so;
}

// Logs how to convert a database file that cannot hand free pages back.
void WarnIfSpaceNotReleasable(Storage& store, const std::string& db) {
  if (auto space = store.retention.DatabaseSpace(); space.ok() && !space.value().releasable)
    Log("database " + db + " was created without incremental vacuum: space freed by retention is reused but "
        "never handed back to the file system; to convert it, stop the collector and run once: sqlite3 " + db +
        " 'PRAGMA auto_vacuum=INCREMENTAL; VACUUM' (collector/README.md, Disk space)");
}

RetentionPolicy RetentionPolicyOf(const CollectorConfig& c) {
  RetentionPolicy policy;
  policy.raw_max_age_ms = c.retention_days > 0 ? c.retention_days * 86400 * 1000 : c.raw_retention_minutes * 60 * 1000;
  policy.minute_max_age_ms = c.minute_rollup_retention_days * 86400 * 1000;
  policy.rollup_max_age_ms = c.rollup_retention_days * 86400 * 1000;
  policy.forget_after_ms = c.forget_after_s * 1000;
  return policy;
}

DiagnosisWorkerOptions DiagnosisOptionsOf(const CollectorConfig& c) {
  DiagnosisWorkerOptions diag;
  diag.interval_ms = c.diagnosis_interval_s * 1000;
  diag.source.report_interval_ms = c.report_interval_s * 1000;
  diag.source.group_label = c.pinglist_group_label;
  diag.vote.latency_factor = static_cast<double>(c.diagnosis_latency_factor_pct) / 100.0;
  return diag;
}

// The watchdog's liveness check: /healthz answered by this very server
// (listening on c.listen_host, port) proves a free HTTP worker and a usable
// database. Over HTTPS it does not verify the certificate: it talks to itself.
std::function<rdmascope::Status()> SelfHealthCheck(const CollectorConfig& c, int port) {
  const std::string self_host = c.listen_host == "0.0.0.0" ? "127.0.0.1" : c.listen_host == "::" ? "::1" : c.listen_host;
  const std::string self_url = std::string(c.tls_cert.empty() ? "http://" : "https://") +
                               (self_host.find(':') != std::string::npos ? "[" + self_host + "]" : self_host) + ":" +
                               std::to_string(port);
  return [self_host, self_url, port]() -> rdmascope::Status {
    httplib::Client cli(self_url);
    cli.enable_server_certificate_verification(false);
    cli.set_connection_timeout(5);
    cli.set_read_timeout(10);
    auto r = cli.Get("/healthz");
    if (!r)
      return rdmascope::Status::Error("GET /healthz on " + self_host + ":" + std::to_string(port) + ": " +
                                      httplib::to_string(r.error()));
    // A full or failing disk is reported by /healthz and the 503s to agents;
    // a restart would not cure it, so the watchdog still counts the collector alive.
    if (r->status == 503 && r->body.find("\"storage problem\"") != std::string::npos) return rdmascope::Status::Ok();
    if (r->status != 200)
      return rdmascope::Status::Error("GET /healthz: HTTP " + std::to_string(r->status) + " " + r->body);
    return rdmascope::Status::Ok();
  };
}

// How serving ended.
struct Served {
  bool ok;         // the server stopped when asked, not by a failure
  bool by_signal;  // asked by SIGTERM or SIGINT
};

// Serves until a signal in signals (which stops the watchdog, then the
// server) or until the server ends on its own; logs the listening line first.
// Returns once the signal waiter has ended.
Served ServeUntilStopped(ApiServer& server, ServiceWatchdog& watchdog, const sigset_t& signals,
                         const std::string& listening) {
  std::atomic<bool> signalled{false}, waking{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (waking) return;  // woken by main after the server ended on its own
    signalled = true;
    Log(std::string("received ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ", stopping");
    watchdog.Stop();
    server.Stop();
  });
  Log(listening);
  bool served = server.Listen();  // returns after Stop(), once in-flight requests have finished
  const bool by_signal = signalled;
  if (!by_signal) {
    waking = true;
    pthread_kill(waiter.native_handle(), SIGTERM);
  }
  waiter.join();
  return {served, by_signal};
}

// Opens the storage, starts the server and the workers, serves until a
// signal, then stops them in order. Returns the exit code.
int RunCollector(const CollectorConfig& c) {
  ApiOptions api;
  if (rdmascope::Status st = BuildApiOptions(c, &api); !st.ok()) return Fail(st.message());
  DiagnosisWorkerOptions diagnosis_options = DiagnosisOptionsOf(c);
  if (!c.topology.empty()) {  // operator configuration: a bad file stops the start
    auto topology = LoadRoceTopologyFile(c.topology);
    if (!topology.ok()) return Fail(topology.status().message());
    diagnosis_options.topology = std::move(topology.value());
    Log("topology " + c.topology + ": " + std::to_string(diagnosis_options.topology.leaves.size()) + " leaves, " +
        std::to_string(diagnosis_options.topology.spines.size()) + " spines");
  }
  const sigset_t signals = BlockStopSignals();  // before any thread starts
  auto store = OpenCollectorStorage(c, StorageOptionsOf(c), NowMs());
  if (!store.ok()) return Fail(store.status().message());
  if (!IsPostgresDb(c.db)) WarnIfSpaceNotReleasable(*store.value(), c.db);

  // Destroyed before the store (below): its group committer's threads use the store until then.
  std::optional<ApiServer> server;
  server.emplace(*store.value(), api);
  auto port = server->Bind(c.listen_host, c.listen_port);
  if (!port.ok()) return Fail(port.status().message());
  // Collectors sharing PostgreSQL: each follows the others' commits into its
  // read model, and one of them (the holder of the leader
  // lock) runs diagnosis, rollups and retention; on SQLite this one does.
  SharedDatabase shared = OpenSharedDatabase(c, *store.value(), Log);
  if (shared.follower) shared.follower->Start();
  std::function<bool()> lead;
  CollectorMetrics& metrics = server->metrics();
  metrics.SetLeader(!shared.leadership);
  if (shared.leadership)
    lead = [l = shared.leadership.get(), &metrics] {
      const bool leads = l->Lead();
      metrics.SetLeader(leads);
      return leads;
    };
  RetentionWorker retention(*store.value(), RetentionPolicyOf(c), c.retention_interval_s * 1000, NowMs, Log,
                            &server->metrics());
  retention.SetLead(lead);
  retention.Start();
  diagnosis_options.lead = lead;
  DiagnosisWorker diagnosis(*store.value(), std::move(diagnosis_options), NowMs, Log);
  diagnosis.Start();
  // The service manager's readiness and watchdog.
  ServiceWatchdog watchdog([&server] { return server->WaitUntilReady(0); }, SelfHealthCheck(c, port.value()), Log);
  watchdog.Start();

  const Served served = ServeUntilStopped(
      *server, watchdog, signals,
      "listening on " + c.listen_host + ":" + std::to_string(port.value()) +
          (c.tls_cert.empty() ? " (HTTP)" : " (HTTPS)") + ", database " + DatabaseName(c.db) +
          (api.read_tokens.empty() ? ", reading open to all" : ", reading needs a read token"));
  watchdog.Stop();
  retention.Stop();
  diagnosis.Stop();
  if (shared.follower) shared.follower->Stop();
  server.reset();          // joins the group committer's writer, publisher and checkpoint threads
  store.value().reset();  // closes the database (checkpoints the WAL)
  if (!served.ok && !served.by_signal) {
    Log("the HTTP server failed while serving; stopped");
    return 2;
  }
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  rdmascope::collector::FixHeapThresholds();  // before any thread starts (heap_release.h)
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (rdmascope::PrintVersionIfAsked("rdmascope-collector", args)) return 0;
  auto parsed = ParseCollectorArgs(args);
  if (!parsed.ok()) {
    std::fprintf(stderr, "rdmascope-collector: %s\n", parsed.status().message().c_str());
    return 2;
  }
  if (parsed.value().help) {
    std::fputs(kCollectorUsage, stdout);
    return 0;
  }
  return RunCollector(parsed.value());
}
