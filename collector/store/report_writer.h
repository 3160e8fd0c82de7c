// The store's writer: one report, or a batch of them, into the database.
//
// Contract:
//  - Ingest() stores one validated report (ValidateReport passed) in ONE
//    transaction: either every row of it is stored or none is. A report_id
//    seen before is not stored again and comes back as duplicate.
//  - Events (wc_error, port_state, counter_threshold, clock_skew, link
//    events of the fabric) are opened and closed inside the same
//    transaction as the report that causes them; the judgements come from
//    collector/rules and common's counter rules.
//  - After each commit the read model follows (SnapshotLoader): from the
//    probe rows the transaction wrote, kept in memory, not read back.
//  - Every method takes the writer's lock (WriterDb::mu()) and returns
//    errors as values. Times are milliseconds since the epoch.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/core/open_event_keys.h"
#include "collector/core/probe_input.h"
#include "collector/readmodel/read_model.h"
#include "collector/rules/link_rules.h"
#include "collector/store/commit_announcement.h"
#include "collector/store/rollups.h"
#include "collector/store/snapshot_loader.h"
#include "collector/store/writer_db.h"
#include "common/counter_rules.h"

namespace rdmascope::collector {

struct IngestResult {
  bool duplicate = false;
  int probe_summaries = 0;
};

class ReportWriter {
 public:
  ReportWriter(WriterDb& w, Rollups& rollups, SnapshotLoader& loader, ReadModel& read)
      : w_(w), mu_(w.mu()), db_(w.conn()), options_(w.options()), rollups_(rollups), loader_(loader), read_(read) {}

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
  void IngestBatch(std::vector<BatchItem>& items, SnapshotUpdate* deferred = nullptr);

  // Reloads the keys of open events from the database (at open, and after a
  // commit that closed events); a failure leaves them invalid: every close runs.
  void LoadOpenEventKeys();

 private:
  Result<SqlStmt*> Q(const char* sql) { return w_.Q(sql); }
  Status Fault(const char* step) { return w_.Fault(step); }
  Status IngestClockSkew(const std::string& node, std::optional<int64_t> skew_ms, int64_t received_at);
  // With the engine's bulk store (WriterDb::probe_bulk): every probe row the
  // open transaction wrote (pending_rows_), stored at once before the commit;
  // the per-row INSERT is skipped. An error fails the whole transaction.
  Status StoreBulkRows();
  // On PostgreSQL, announces to the other collectors on the database which
  // reports this transaction stored (commit_announcement.h, on
  // kPgCommitChannel), delivered at its commit; nothing on SQLite. Their
  // min_end is filled here from pending_rows_.
  Status AnnounceCommit(std::vector<CommittedReport> reports);
  // probes: the report's probes as ExtractProbes() gives them; nullptr: extract here.
  // rows: as BatchItem::rows, or nullptr.
  Status IngestLocked(const nlohmann::json& r, int64_t received_at, const std::vector<ProbeInput>* probes,
                      const std::vector<std::shared_ptr<const ProbeRow>>* rows, IngestResult* out);
  // The report being ingested (set by IngestLocked, under mu_): its boot id
  // ("" when absent) and interval, for the counter rules.
  std::string ingest_boot_id_;
  // The instance of the device whose ports are being ingested (set by
  // IngestInventory per device; "" when absent), for the counter rules.
  std::string ingest_instance_;
  int64_t ingest_interval_ms_ = 0;
  std::shared_ptr<const std::string> ingest_report_id_;  // shared by its probe rows
  // The probe rows the open transaction wrote, in the order written, as the
  // snapshot holds them: applied to it after the commit (RefreshSnapshot)
  // instead of being read back. A report rolled back to its savepoint takes
  // its rows out again.
  std::vector<std::shared_ptr<const ProbeRow>> pending_rows_;
  Status IngestNode(const nlohmann::json& r, int64_t received_at);
  Status IngestInventory(const nlohmann::json& r, int64_t received_at);
  // A report's ports and counters (report_ports.cpp): what the store holds
  // of the node's ports and counters is read once per report, each port
  // judged against it, and the new rows written together after the last
  // port, a few rows per statement (on PostgreSQL every statement is a round
  // trip to the server). A port listed twice in one report: the later wins,
  // as it did when each was written at once.
  using PortKey = std::pair<std::string, int64_t>;                         // (device, port)
  using CounterKey = std::tuple<std::string, int64_t, std::string, std::string>;  // (device, port, kind, name)
  struct PortRow {
    const nlohmann::json* dev;
    const nlohmann::json* port;
  };
  struct CounterRow {
    const char* kind;
    std::optional<int64_t> value, delta, delta_from;
    bool error;
    std::string instance;  // the device's, "" unknown
  };
  struct SampleRow {
    std::string device;
    int64_t port;
    std::string counters;  // {"counters": {...}, "hw_counters": {...}} as stored
    std::string instance;
  };
  struct PortBatch {
    std::map<PortKey, int64_t> updated_at;             // stored ports' updated_at
    std::map<CounterKey, CounterReading> stored;       // stored counters
    std::map<PortKey, PortRow> ports;                  // to upsert
    std::map<CounterKey, CounterRow> counters;         // to upsert
    std::vector<SampleRow> samples;                    // to insert
  };
  Status ReadPortBatch(const std::string& node, PortBatch* b);
  Status IngestPort(const std::string& node, const nlohmann::json& dev, const nlohmann::json& port, int64_t at,
                    PortBatch* b);
  // Judges one kind's counters (when newer) against b->stored, adding the
  // rows to keep to b->counters, and puts them, as stored, into *sample:
  // {name: integer or null}.
  Status IngestCounters(const std::string& node, const std::string& device, int64_t port, const char* kind,
                        const nlohmann::json& map, int64_t at, bool newer, PortBatch* b, nlohmann::json* sample);
  // Writes b's rows: ports and counters upserted (a stored counter newer
  // than `at` stays), samples inserted.
  Status WritePortBatch(const std::string& node, int64_t at, const std::string& report_id, const PortBatch& b);
  Status JudgePcie(const std::string& node, const nlohmann::json& dev, int64_t at);
  // Judges one counter against its previous reading (the counter rules) and
  // gives the rules' delta (*delta, NULL: first or absent reading) and the
  // time of the reading it is over (*delta_from), which IngestCounters keeps.
  Status JudgeCounter(const std::string& node, const std::string& device, int64_t port, const char* kind,
                      const std::string& name, std::optional<int64_t> v, int64_t at,
                      const std::optional<CounterReading>& previous, std::optional<int64_t>* delta,
                      std::optional<int64_t>* delta_from);
  // Opens port_congested on `where` when d's delta over span_ms is at or
  // above per_second, closes it otherwise (contract in report_ports.cpp).
  Status JudgeCongestion(const std::string& where, const std::string& node, const std::string& device, int64_t port,
                         const std::string& name, const CounterDelta& d, int64_t span_ms, uint64_t per_second,
                         int64_t at);
  // failing: "dst|transport" of every summary in this report with errors; a
  // clean summary of such a pair (another local port) closes nothing.
  // insert: the statement of ProbeInsertSql; row: ProbeRowFromInput(node,
  // probe, the report's id) when made already, else null.
  Status IngestProbe(const std::string& node, const ProbeInput& probe, int64_t received_at,
                     const std::string& report_id, const std::set<std::string>& failing, SqlStmt& insert,
                     std::shared_ptr<const ProbeRow> row);

  // InfiniBand sections: neighbours and sweeps (report_fabric.cpp); the
  // link judgements are collector/rules/link_rules.h's.
  Status IngestFabric(const nlohmann::json& r, int64_t at);
  // "responder_events": each opens (or touches) the responder_qp_error event
  // of its (node, device, port) at its time; a port whose last event says it
  // recovered has that event closed at `received_at` (report_events.cpp).
  Status IngestResponderEvents(const nlohmann::json& r, int64_t received_at);
  // "report_losses": each episode is one reports_lost event of the node,
  // keyed by the node and the episode's id: started at first_ms, the
  // largest count seen, ended at last_ms once the episode says ended (times
  // no later than `received_at`). A report repeating an episode updates
  // that event, never adds one (report_events.cpp).
  Status IngestReportLosses(const nlohmann::json& r, int64_t received_at);
  struct Sweep;
  Status IngestNeighbour(const std::string& node, const nlohmann::json& n, int64_t at);
  // Appends the error counters an agent read on its neighbour's port to that
  // port's sample history when they differ from its newest sample.
  Status AppendNeighbourSample(const std::string& guid, int64_t port, const nlohmann::json& counters, int64_t at);
  // fabric_port_rises of a port after a sample was appended: PutPortRises
  // with the rises of its newest sample over the one before (read here), or
  // none when it has only one. PutPortRises: rises (SampleErrorRises; at the
  // newest sample's time) upserted, or the port's row deleted when empty.
  Status KeepPortRises(const std::string& guid, int64_t port);
  Status PutPortRises(const std::string& guid, int64_t port, int64_t at, const nlohmann::json& rises);
  // Upserts the sweep's nodes and ports and fills *sweep.
  Status IngestSweepNodes(const nlohmann::json& f, const std::string& node, int64_t at, Sweep* sweep);
  // One link of the sweep (ends ordered): upserted, link_down closed,
  // link_degraded opened or closed.
  Status IngestSweepLink(const Sweep& sweep, const LinkEnd& a, const LinkEnd& b, int64_t at);
  // Links known before and missing from this sweep, where it could have seen them.
  Status MarkGoneLinks(const Sweep& sweep, const std::string& node, int64_t at);
  Status MarkLinkGone(const Sweep& sweep, const LinkEnd& a, const LinkEnd& b, const std::string& node, int64_t at);
  // link_errors on one end, and its error counters kept when they changed.
  Status JudgeLinkErrors(const LinkEnd& me, const std::optional<LinkEnd>& other, const nlohmann::json& errors,
                         const nlohmann::json& before, const std::map<std::string, std::string>& names, int64_t at);
  // describe: also overwrite type, name, ports, LID and seen_by (sweeps);
  // else only a new switch is described and a known one marked seen.
  Status UpsertFabricNode(const nlohmann::json& node, const std::string& seen_by, int64_t at, bool describe);
  Status IngestFabricPort(const std::string& guid, int64_t port, const nlohmann::json& p,
                          const std::map<std::string, std::string>& names, int64_t at);
  // Fills descriptions of guids missing from *names from fabric_nodes.
  Status FabricNames(const std::vector<std::string>& guids, std::map<std::string, std::string>* names);
  // A switch's forwarding table, stored when it changed (report_routes.cpp).
  Status IngestLft(const std::string& guid, const nlohmann::json& lft, const std::string& seen_by, int64_t at);
  // fabric_topology_version + 1 (report_routes.cpp).
  Status BumpTopologyVersion();
  // The sweep being ingested changed what a trace reads (under mu_; reset by IngestFabric).
  bool topology_changed_ = false;
  // What the sweep being ingested changed that an administrator wants told
  // (one fabric_changed event per sweep; report_fabric.cpp). `first`: the
  // store had no fabric node before it, so nothing is "added".
  struct SweepChanges {
    bool first = false;
    std::vector<std::string> nodes_added, links_added, described, lids;
    size_t count() const { return nodes_added.size() + links_added.size() + described.size() + lids.size(); }
  } sweep_changes_;
  Status RecordSweepChanges(const std::string& sweeper, int64_t at);
  FabricChange fabric_change_;  // of the commit under way (RefreshSnapshot)

  // Events (report_events.cpp).
  Status OpenOrTouchEvent(const std::string& kind, const std::string& key, const std::string& node,
                          const std::optional<std::string>& peer, const std::optional<std::string>& transport,
                          const std::optional<std::string>& device, std::optional<int64_t> port,
                          const std::string& status, const std::string& detail, int64_t count, int64_t at);
  Status CloseEventByKey(const std::string& key, int64_t at);
  Status CloseWcEvents(const std::string& src, const std::string& dst, const std::string& transport, int64_t at);
  OpenEventKeys open_events_;     // under mu_
  bool closed_events_ = false;    // this transaction closed an event (under mu_)


  WriterDb& w_;
  std::mutex& mu_;
  SqlConn& db_;
  const StoreOptions& options_;
  Rollups& rollups_;
  SnapshotLoader& loader_;
  ReadModel& read_;
};

}  // namespace rdmascope::collector
