// The collector's store: one SQLite database in WAL mode.
//
// Contract:
//  - Open() applies the built-in migrations and sets WAL, busy_timeout and
//    the synchronous level; a failure names the file and what to check.
//  - Ingest() stores one validated report (ValidateReport passed) in ONE
//    transaction: either every row of it is stored or none is. A report_id
//    seen before is not stored again and comes back as duplicate.
//  - Events (wc_error, port_state, counter_threshold) are opened and closed
//    inside the same transaction as the report that causes them.
//  - Every method is thread-safe (one connection, serialised by a mutex) and
//    returns errors as values. Query methods return JSON shaped for the API.
//  - Matrix, MetricsSnapshot, WorstPairs and NodeInfos answer from the read
//    snapshot (read_snapshot.h) without SQL and without the mutex: it is
//    loaded at Open and refreshed after every commit of Ingest/IngestBatch
//    from the rows that commit wrote (for a deferred batch, by
//    PublishSnapshot on the caller's publishing thread).
//  - Times are milliseconds since the epoch.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/core/open_event_keys.h"
#include "collector/core/probe_input.h"
#include "collector/readmodel/node_info.h"
#include "collector/readmodel/read_snapshot.h"
#include "collector/store/history_reader.h"
#include "collector/store/store_db.h"
#include "collector/store/store_migrate.h"
#include "collector/rules/thresholds.h"
#include "common/status.h"

namespace rdmascope::collector {

namespace diagnosis {
struct Verdict;
}

struct StoreOptions {
  std::string path = "rdmascope.db";
  int busy_timeout_ms = 5000;
  bool synchronous_full = true;  // FULL: an acknowledged report survives power loss; false: NORMAL
  int64_t max_bytes = 0;         // the database file grows no larger (writes then fail "full"); 0: no cap
  int64_t query_deadline_ms = 5000;  // every read for the API and the diagnosis stops after this
  CounterThresholds thresholds = DefaultCounterThresholds();
  MigrationHeartbeat migration_heartbeat;  // while Open migrates the database
  // The read snapshot keeps the probe pairs of at most this many destinations
  // per node (those reported last); the others' rows stay in the database.
  size_t max_destinations_per_node = 1024;
  // Where the store says what it dropped (the destinations over the cap); may be empty.
  std::function<void(const std::string&)> log;
};

struct IngestResult {
  bool duplicate = false;
  int probe_summaries = 0;
};

// How long rows are kept, and how rollups are built. The defaults keep a node
// with 8 rails x 20 targets x 2 transports every 10 s under 50 MB (measured by
// bench/collector_fleet_load; collector/README.md, Retention).
struct RetentionPolicy {
  int64_t raw_max_age_ms = 3600LL * 1000;             // probe summaries, counter samples, wc errors
  int64_t minute_max_age_ms = 1LL * 86400 * 1000;     // per-minute probe rollups, report ids (dedupe)
  int64_t rollup_max_age_ms = 90LL * 86400 * 1000;    // hourly rollups and closed events
  int batch_rows = 500;                                // rows deleted per step and table
  // A slice of raw time is rolled up once it ended this long ago; summaries
  // for it that arrive later are added to the rollups as they are stored.
  int64_t rollup_grace_ms = 2LL * 60 * 1000;
  // Raw time one RollupStep covers (divides a minute): the store lock is held
  // for one slice, about 150 ms per slice at 2,000 nodes x 320 summaries
  // every 10 s when the nodes' intervals are spread over the 10 s.
  int64_t rollup_slice_ms = 1000;
  // Free pages one Store::ReleaseFreePages call hands back (2 MiB at the
  // default 4 KiB page): pages in use past them are moved down, under the
  // lock; about 30 ms a step in a 1.2 GB file whose older half was deleted
  // (2,048 pages: about 130 ms).
  int64_t release_pages_per_step = 512;
  // A node silent this long is forgotten (its nodes, ports, counters_latest,
  // wc_error_totals and node_neighbours rows, and its state in memory); so
  // are a reporting node's ports, counters and neighbours not reported this
  // long. Probe pairs leave memory when their newest summary ended longer
  // ago than this or raw_max_age_ms, whichever is shorter.
  int64_t forget_after_ms = 7LL * 86400 * 1000;
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);
  ~Store();

  // clock_skew_ms: set when the agent's clock was found off by more than the
  // tolerance (the report's times are already shifted onto the collector's
  // clock); opens that node's clock_skew event, and a report without it
  // closes the event.
  Result<IngestResult> Ingest(const nlohmann::json& report, int64_t received_at_ms,
                              std::optional<int64_t> clock_skew_ms = std::nullopt);

  // One item of a group commit: a validated report and what Ingest takes.
  struct BatchItem {
    const nlohmann::json* report = nullptr;
    const std::vector<ProbeInput>* probes = nullptr;  // ExtractProbes(*report), made off the writer; or nullptr
    // With probes, and made off the writer too: ProbeRowFromInput of each of
    // them, in order (node and report id of *report); or nullptr.
    const std::vector<std::shared_ptr<const ProbeRow>>* rows = nullptr;
    int64_t received_at_ms = 0;
    std::optional<int64_t> clock_skew_ms;
    Status status = Status::Error("not ingested");  // the item's outcome; out is valid when ok
    IngestResult out;
  };
  // Ingests every item in one transaction, each inside its own savepoint: an
  // item that fails is rolled back alone and gets its error (a storage fault —
  // disk full, I/O error, damage — fails the whole batch instead); the others are
  // committed together (one fsync). When the commit itself fails, every item
  // gets that error and nothing is stored. Each item's result is final only
  // after this returns. The node states it replaced wait for
  // TakeReplacedStates().
  //
  // With `deferred`, the read snapshot's in-memory part of the update (the
  // committed probe rows applied to the nodes' freshly read states, merged
  // with their published pairs, summarised and published) is left in
  // *deferred for PublishSnapshot, which the caller runs on another thread
  // so the writer can go on with the next batch; the reports are visible to
  // the snapshot's reads only once that returns. Without it, or when the
  // snapshot must be rebuilt or a fabric sweep came in, the update is made
  // here (after every deferred one was published) and *deferred stays empty.
  struct SnapshotUpdate {
    std::vector<std::shared_ptr<NodeState>> states;  // read after the commit, pairs not yet merged
    std::vector<std::shared_ptr<const ProbeRow>> rows;  // the commit's probe rows, in the order written
    bool pending = false;  // counted as owed until PublishSnapshot
  };
  void IngestBatch(std::vector<BatchItem>& items, SnapshotUpdate* deferred = nullptr);
  // Publishes one deferred update. Call without holding anything of the
  // store's, from one thread, in the order the batches committed. Frees the
  // states it replaced before it returns.
  void PublishSnapshot(SnapshotUpdate& update);

  // Queries for the API (see api_queries.cpp for their JSON shapes). Every
  // one reads on a read-only connection of its own (History), never under
  // the store's mutex, and stops at query_deadline_ms. Lists end after
  // `limit` rows; the lists of Nodes, Ports, FabricNodes and FabricLinks
  // then say "truncated": true.
  static constexpr int kListLimit = 100000;
  Result<nlohmann::json> Nodes(int64_t now_ms, int64_t stale_after_ms, int limit = kListLimit);
  Result<std::optional<nlohmann::json>> Node(const std::string& name, int64_t now_ms, int64_t stale_after_ms);
  Result<nlohmann::json> Ports(const std::optional<std::string>& node, int limit = kListLimit);
  // The same answer as JSON text written row by row (GET /api/v1/ports, the
  // largest list: it costs about its text, not a value per field).
  Result<std::string> PortsText(const std::optional<std::string>& node, int limit = kListLimit);
  // with_boot_id: each sample also names the boot of its report (null: unknown).
  Result<nlohmann::json> Counters(const std::optional<std::string>& node, int64_t since_ms, int limit,
                                  bool with_boot_id = false);
  Result<nlohmann::json> Probes(const std::optional<std::string>& src, const std::optional<std::string>& dst,
                                int64_t since_ms, int64_t until_ms, int limit);
  // Rollup rows of probe_minute (hourly = false) or probe_hourly whose period
  // starts in [since_ms, until_ms], oldest first: {"rollups":[...]}.
  Result<nlohmann::json> ProbeRollups(bool hourly, const std::optional<std::string>& src,
                                      const std::optional<std::string>& dst, int64_t since_ms, int64_t until_ms,
                                      int limit);
  // The newest summary of every pair ending at or after since_ms, worst first: pairs with
  // errors, then by loss ratio, then by p99 RTT.
  Result<nlohmann::json> WorstPairs(int64_t since_ms, int limit);
  Result<nlohmann::json> Events(bool open_only, const std::optional<std::string>& kind,
                                const std::optional<std::string>& node, int limit);
  Result<std::vector<NodeInfo>> NodeInfos();
  // The fabric as sweeps and neighbour lookups saw it (store_fabric_query.cpp):
  // {"nodes":[...with "ports"]}, {"links":[...]}, {"ports":[over threshold],"events":[open link events]}.
  // FabricErrors: at most `limit` ports over a threshold and `limit` events.
  Result<nlohmann::json> FabricNodes(int limit = kListLimit);
  Result<nlohmann::json> FabricLinks(int64_t history_since_ms, int limit = kListLimit);
  Result<nlohmann::json> FabricErrors(int limit = kListLimit);
  // The switch ports at the other end of a node's (nullopt: every node's) IB
  // ports, as an array of at most `limit` rows.
  Result<nlohmann::json> NodeNeighbours(const std::optional<std::string>& node, int limit = kListLimit);
  // The dashboard's latency matrix (contract in store_matrix.cpp); since_ms < 0:
  // the last three report intervals.
  // rail set: only summaries of that rail. Not-run summaries (a local port
  // down) are left out: they measured nothing.
  Result<nlohmann::json> Matrix(int64_t since_ms, int max_rows, const std::optional<std::string>& rail = std::nullopt);
  // The same answer as JSON text, written without building it as a value (GET /api/v1/matrix).
  Result<std::string> MatrixText(int64_t since_ms, int max_rows, const std::optional<std::string>& rail = std::nullopt);

  // Diagnoses (store_diagnoses.cpp).
  // What the analysis reads, as rows (diagnosis_input.cpp turns them into its
  // input): "paths" the newest summary per (src, dst, rail, transport) ending
  // at or after since_ms; "ports" every port's state; "moved" counters whose
  // newest sample (at or after since_ms) rose over the one before, looking
  // back no further than counters_from_ms (<= since_ms) for that earlier
  // sample; "switch" the switch port at the other end of each node port with
  // the error counters of its two newest samples.
  // Cost: bounded by the rows inside the window, not by the history kept.
  // Read on a read-only connection (History), never under the store's
  // mutex, and stopped at query_deadline_ms; so is OpenDiagnosisKeys.
  Result<nlohmann::json> DiagnosisFacts(int64_t since_ms, int64_t counters_from_ms);
  Result<std::set<std::string>> OpenDiagnosisKeys();
  // One transaction: opens (or refreshes the evidence of) every verdict of
  // upsert and closes the open diagnoses of close at now_ms.
  Status ApplyDiagnoses(const std::vector<diagnosis::Verdict>& upsert, const std::vector<std::string>& close,
                        int64_t now_ms);
  // {"diagnoses":[...]}: open ones (critical first, newest first); with
  // include_closed also closed ones after them.
  Result<nlohmann::json> Diagnoses(bool include_closed, int limit);

  // Everything /metrics exports, as plain rows: SnapshotMetricsRows
  // (read_snapshot.h) with worst_pairs rows, plus "diagnoses_open",
  // "worst_pairs_limit" and "thresholds".
  Result<nlohmann::json> MetricsSnapshot(int64_t probes_since_ms, int worst_pairs);
  // The same without "ports" and "counters", which stay in the nodes' own
  // rows (NodeState::ports, ::counters, and their rendered families
  // NodeState::port_text, by node name), so a scrape copies none of them.
  struct MetricsParts {
    nlohmann::json rows;
    std::vector<std::shared_ptr<const NodeState>> nodes;
  };
  Result<MetricsParts> MetricsSnapshotParts(int64_t probes_since_ms, int worst_pairs);

  // Deletes at most policy.batch_rows rows from each table past its age;
  // returns how many rows it deleted (0: nothing left to delete). Raw probe
  // summaries not yet rolled up (RollupThroughMs), and minute rollups not yet
  // merged into hours, are kept whatever their age.
  Result<int64_t> RetentionStep(int64_t now_ms, const RetentionPolicy& policy);
  // Rolls the oldest closed slice of raw summaries (policy.rollup_slice_ms,
  // closed policy.rollup_grace_ms before now_ms) into probe_minute, and the
  // whole ten minutes completed by earlier steps into probe_hourly (so the
  // hour in progress trails the minutes by up to ten), in one transaction;
  // returns 1, or 0 when no closed slice and no completed minute is left.
  // Stretches without summaries are skipped. The slice and the minutes are
  // read and grouped on connections of their own, without the store's lock;
  // what is stored in them meanwhile is added under the lock.
  Result<int64_t> RollupStep(int64_t now_ms, const RetentionPolicy& policy);
  // What ForgetStep forgot, summed over its calls.
  struct ForgetTally {
    int64_t nodes = 0, rows = 0, pairs = 0;
  };
  // Visits the next few nodes (by name, from where the last call stopped):
  // forgets those silent longer than policy.forget_after_ms, deletes the aged
  // rows of the others and drops their aged probe pairs from memory (see
  // RetentionPolicy::forget_after_ms), in one transaction; adds to *tally.
  // Returns the nodes visited: 0 when a round over every node is complete
  // (the next call starts the next round).
  Result<int64_t> ForgetStep(int64_t now_ms, const RetentionPolicy& policy, ForgetTally* tally);
  // Moves the rollup mark past the slice RollupStep would roll now (when no
  // slice is due: the hourly mark past the minutes it would merge), adding
  // nothing to the rollups: for a step that failed, so that one bad slice
  // never holds the marks (and with them the raw retention) for good. Its
  // summaries stay in probe_summaries until retention; the rollups lack them.
  // Returns 1, or 0 when there was nothing to skip.
  Result<int64_t> SkipRollupStep(int64_t now_ms, const RetentionPolicy& policy);
  // Raw summaries with interval_end below this are counted in the rollups.
  int64_t RollupThroughMs();
  // The node states the last IngestBatch() replaced in the read snapshot, for
  // the caller to free after answering and off the store lock: a node's
  // state holds its hundreds of pairs. Those not taken are freed by the next
  // IngestBatch(), after its lock; Ingest() frees its own after its lock.
  std::vector<std::shared_ptr<const NodeState>> TakeReplacedStates();

  // The database file's pages. free_pages are empty pages inside the file,
  // reused by later writes; releasable says whether they can be handed back
  // to the file system (the file was created with incremental vacuum).
  struct Space {
    int64_t page_size = 0;
    int64_t pages = 0;
    int64_t free_pages = 0;
    bool releasable = false;
  };
  Result<Space> DatabaseSpace();
  // Hands free pages back to the file system (PRAGMA incremental_vacuum),
  // at most max_pages per call, each call its own transaction under the
  // store lock. A reserve of one page in kFreePageReserveDivisor of the file
  // stays free: a retention pass frees about what ingest writes again before
  // the next, and shrinking then regrowing the file would only cost writes.
  // Returns the pages released: 0 when nothing is beyond the reserve or the
  // file cannot release (created before incremental vacuum; see
  // collector/README.md, Disk space).
  static constexpr int64_t kFreePageReserveDivisor = 16;
  Result<int64_t> ReleaseFreePages(int64_t max_pages);

  // The WAL's checkpoints (store_checkpoint.cpp). A commit does not copy
  // the WAL into the database file while reports wait for its
  // acknowledgement. CheckpointWal() copies it (passive: readers and the
  // writer are never waited for) once kWalCheckpointPages not yet copied
  // are in it, on a connection of its own and without the store's lock, so
  // it may run on any thread while the writer commits (the group commit's
  // checkpoint thread calls it after each batch). Frames committed during a
  // copy wait for the next one, so under steady load the WAL is only
  // restarted by the backstop: a commit that leaves kWalBackstopPages or
  // more in it copies what is left at once, on the writer's connection
  // (this also bounds writes no checkpoint call follows: retention,
  // rollups, Ingest()). Closing the store checkpoints the rest. A failed
  // checkpoint is tried again at the next call; the commits themselves
  // report a storage fault.
  static constexpr int kWalCheckpointPages = 1000;
  static constexpr int kWalBackstopPages = 4 * kWalCheckpointPages;
  Status CheckpointWal();

  // Database file plus WAL size in bytes (0 for an in-memory database).
  int64_t SizeBytes() const;
  const std::string& path() const { return options_.path; }
  // A read of the database on a read-only connection (not the writer's).
  Status Ping();
  Result<int64_t> CountRows(const std::string& table);  // table must be a known table name

  // Test seam: called at every step of Ingest with the step's name
  // ("report", "node", "port", "counters", "probe", "wc_error", "commit");
  // an error aborts the ingest at that step.
  void SetIngestFaultHook(std::function<Status(const std::string& step)> hook);
  // Test seam: called by RollupStep after it read a slice and before it
  // takes the lock to write it.
  void SetRollupReadHook(std::function<void()> hook);

 private:
  Store(Db db, StoreOptions options);
  Result<Stmt*> Q(const char* sql);  // cached prepared statement
  // Runs a history query on a read-only connection (HistoryReader), or, for
  // an in-memory database, on the store's own under mu_.
  Result<nlohmann::json> History(const std::function<Result<nlohmann::json>(Db&)>& fn);
  Result<std::string> HistoryText(const std::function<Result<std::string>(Db&)>& fn);
  std::unique_ptr<HistoryReader> history_;
  Result<nlohmann::json> SelectRows(const char* sql);  // every row of a cached statement, as objects
  Status Fault(const char* step);

  // Read snapshot upkeep (store_read_snapshot.cpp), under mu_.
  Status LoadSnapshot();
  // After a commit: the state of `nodes` and the probe rows in pending_rows_
  // (then emptied); the published states it replaces go to replaced_.
  // With `deferred` (see IngestBatch): only the SQL part here.
  void RefreshSnapshot(const std::set<std::string>& nodes, bool fabric_changed,
                       SnapshotUpdate* deferred = nullptr);
  // Blocks until every deferred update handed out has been published: the
  // snapshot's nodes are then what every commit so far left (for the updates
  // made in place, which read or replace them).
  void WaitForPublishedSnapshot();
  std::mutex publish_mu_;
  std::condition_variable publish_cv_;
  int publishes_owed_ = 0;  // under publish_mu_
  // A node's stored state (nodes row, leaf switch, ports, counters, WC totals)
  // with no pairs; null when the node has not reported.
  Result<std::shared_ptr<NodeState>> LoadNodeState(const std::string& name);
  Result<std::string> LeafSwitch(const std::string& name);
  Status LoadEventsOpen();
  Status LoadDiagnosesOpen();  // open diagnoses by scope and kind, for /metrics
  Status LoadFabricParts();
  ReadSnapshot snapshot_;
  // Keeps st's pairs within options_.max_destinations_per_node, saying so
  // when it drops any; `before`: how many pairs st had before this commit's.
  void CapDestinations(NodeState& st, size_t before);
  std::string forget_cursor_;  // ForgetStep's place: the last node name visited
  bool snapshot_dirty_ = false;  // a refresh failed: the next one reloads everything
  // The node states a refresh replaced, freed off the lock (TakeReplacedStates).
  std::vector<std::shared_ptr<const NodeState>> replaced_;

  // Rollups (store_rollup.cpp), under mu_.
  Status LoadRollupMark();
  // Adds one summary from src that arrived after its slice was rolled.
  Status AddLateSummaryToRollups(const std::string& src, const ProbeInput& s);
  int64_t rollup_through_ms_ = 0;
  // Whole minutes below this are counted in probe_hourly; at most the minute
  // of rollup_through_ms_. The minutes between are merged by a later step,
  // ten minutes at a time (store_rollup.cpp).
  int64_t hourly_through_ms_ = 0;
  // One late summary's measures, in its minute or hour (period).
  struct LateSummary {
    std::string src, dst, transport;
    int64_t period, sent, received, lost, error_count;
    std::optional<double> rtt_p50, rtt_p99, rtt_max;
  };
  // While a step reads minutes [hourly_reading_from_, hourly_reading_to_)
  // without the lock (to 0: none): the late summaries committed in them since
  // its read began, which it adds under the lock. The open transaction's own
  // are kept apart (pending_owed_, like pending_rows_) until it commits.
  int64_t hourly_reading_from_ = 0, hourly_reading_to_ = 0;
  std::vector<LateSummary> hourly_owed_, pending_owed_;
  void OweCommittedLateSummaries();  // after a commit: pending_owed_ joins hourly_owed_
  std::unique_ptr<Db> rollup_reader_;  // read-only; opened on first use; none for ":memory:"
  // Begins a read transaction on rollup_reader_ and takes its view of the
  // database; false when there is no reader or that failed.
  bool PinRollupReader();
  // RollupStep, or with skip SkipRollupStep.
  Result<int64_t> RollOrSkip(int64_t now_ms, const RetentionPolicy& policy, bool skip);
  // Adds one late summary to probe_minute or probe_hourly (upsert: the
  // matching statement in store_rollup.cpp).
  Status AddOneLateSummary(const char* upsert, const LateSummary& o);
  std::function<void()> rollup_read_hook_;

  Status IngestClockSkew(const std::string& node, std::optional<int64_t> skew_ms, int64_t received_at);
  // probes: the report's probes as ExtractProbes() gives them; nullptr: extract here.
  // rows: as BatchItem::rows, or nullptr.
  Status IngestLocked(const nlohmann::json& r, int64_t received_at, const std::vector<ProbeInput>* probes,
                      const std::vector<std::shared_ptr<const ProbeRow>>* rows, IngestResult* out);
  // The report being ingested (set by IngestLocked, under mu_): its boot id
  // ("" when absent) and interval, for the counter rules.
  std::string ingest_boot_id_;
  int64_t ingest_interval_ms_ = 0;
  std::shared_ptr<const std::string> ingest_report_id_;  // shared by its probe rows
  // The probe rows the open transaction wrote, in the order written, as the
  // snapshot holds them: applied to it after the commit (RefreshSnapshot)
  // instead of being read back. A report rolled back to its savepoint takes
  // its rows out again.
  std::vector<std::shared_ptr<const ProbeRow>> pending_rows_;
  Status IngestNode(const nlohmann::json& r, int64_t received_at);
  Status IngestInventory(const nlohmann::json& r, int64_t received_at);
  Status IngestPort(const std::string& node, const nlohmann::json& dev, const nlohmann::json& port, int64_t at,
                    const std::string& report_id);
  // Judges and keeps the newest of one kind's counters (when newer) and puts
  // them, as stored, into *sample: {name: integer or null}.
  Status IngestCounters(const std::string& node, const std::string& device, int64_t port, const char* kind,
                        const nlohmann::json& map, int64_t at, bool newer, nlohmann::json* sample);
  Status JudgePcie(const std::string& node, const nlohmann::json& dev, int64_t at);
  Status JudgeCounter(const std::string& node, const std::string& device, int64_t port, const char* kind,
                      const std::string& name, std::optional<int64_t> v, int64_t at);
  // failing: "dst|transport" of every summary in this report with errors; a
  // clean summary of such a pair (another local port) closes nothing.
  // insert: the statement of ProbeInsertSql; row: ProbeRowFromInput(node,
  // probe, the report's id) when made already, else null.
  Status IngestProbe(const std::string& node, const ProbeInput& probe, int64_t received_at,
                     const std::string& report_id, const std::set<std::string>& failing, Stmt& insert,
                     std::shared_ptr<const ProbeRow> row);

  // InfiniBand sections: neighbours and sweeps (store_fabric.cpp).
  Status IngestFabric(const nlohmann::json& r, int64_t at);
  // describe: also overwrite type, name, ports, LID and seen_by (sweeps);
  // else only a new switch is described and a known one marked seen.
  Status UpsertFabricNode(const nlohmann::json& node, const std::string& seen_by, int64_t at, bool describe);
  Status IngestFabricPort(const std::string& guid, int64_t port, const nlohmann::json& p,
                          const std::map<std::string, std::string>& names, int64_t at);
  // Fills descriptions of guids missing from *names from fabric_nodes.
  Status FabricNames(const std::vector<std::string>& guids, std::map<std::string, std::string>* names);

  // Events (store_events.cpp).
  Status OpenOrTouchEvent(const std::string& kind, const std::string& key, const std::string& node,
                          const std::optional<std::string>& peer, const std::optional<std::string>& transport,
                          const std::optional<std::string>& device, std::optional<int64_t> port,
                          const std::string& status, const std::string& detail, int64_t count, int64_t at);
  Status CloseEventByKey(const std::string& key, int64_t at);
  Status CloseWcEvents(const std::string& src, const std::string& dst, const std::string& transport, int64_t at);
  // Reloads open_events_ from the database (after opening it, and after a
  // commit that closed events); a failure leaves it invalid: every close runs.
  void LoadOpenEventKeys();
  OpenEventKeys open_events_;     // under mu_
  bool closed_events_ = false;    // this transaction closed an event (under mu_)

  // Frames in the WAL after the writer connection's last commit (set by its
  // WAL hook, under mu_), and the frames of it a checkpoint has copied
  // (0 again once the WAL restarted).
  std::atomic<int> wal_pages_{0}, wal_copied_{0};
  static int OnWalCommit(void* store, sqlite3* db, const char* schema, int pages);
  int WalPagesToCopy() const;
  // A passive checkpoint on db (the writer's connection, under mu_, or
  // checkpoint_db_, under checkpoint_mu_); records the frames it copied.
  Status CopyWal(Db& db);
  std::mutex checkpoint_mu_;
  std::unique_ptr<Db> checkpoint_db_;  // opened on first use; none for ":memory:"

  mutable std::mutex mu_;
  Db db_;
  StoreOptions options_;
  std::unordered_map<std::string, Stmt> stmts_;
  std::function<Status(const std::string&)> fault_hook_;
};


}  // namespace rdmascope::collector
