// The read snapshot: what the matrix, /metrics, /api/v1/probes/worst and
// pinglists answer from, kept in memory so those reads run no SQL and never
// wait for the store's mutex (which the writer holds for a whole commit).
//
// Contract:
//  - Per node (a NodeState, immutable once published): its nodes row, leaf
//    switch, the /metrics rows of its ports, latest counters and WC totals,
//    and per (dst, rail, transport) the newest probe summary it sent and the
//    newest one that ran (not_run NULL) — "newest" by interval_end; on a tie
//    the one stored later wins; and, made when the node is published, a
//    summary of those pairs and the text of its port families for /metrics.
//  - Fleet-wide: open events counted by kind and the fabric parts of
//    /metrics, each replaced whole.
//  - Only the store's writer publishes (SnapshotLoader::RefreshSnapshot, after each
//    commit; SnapshotLoader::LoadSnapshot at open). Publishing swaps pointers under a
//    short mutex; Take() copies the pointers, so a reader works on a
//    consistent view while the writer goes on.
//  - The answers keep the shapes of the SQL they replace (read_snapshot_render.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/readmodel/coverage_targets.h"
#include "collector/readmodel/metrics_port_text.h"
#include "collector/readmodel/port_list.h"
#include "collector/core/probe_input.h"

namespace rdmascope::collector {

// One probe_summaries row as the API shows it, compact: strings that repeat
// across rows (names, devices, transports, rails) are interned, the row
// holding each of its own (Intern below: a row's string fields are set from
// Intern, which hands the row the hold, and given back when the row goes);
// NULL is nullptr (text), kNullInt (integer) or NaN (real).
struct ProbeRowFields {
  static constexpr int64_t kNullInt = INT64_MIN;
  const std::string *src = nullptr, *dst = nullptr, *transport = nullptr, *local_device = nullptr,
                    *remote_host = nullptr, *rail = nullptr, *remote_device = nullptr, *not_run = nullptr;
  std::shared_ptr<const std::string> report_id;  // shared by the rows of one report
  std::string errors_by_status = "{}";           // JSON text
  int64_t local_port = kNullInt, interval_start = 0, interval_end = 0, sent = 0, received = 0, lost = 0,
          rtt_count = kNullInt, error_count = 0, remote_port = kNullInt;
  double loss_ratio, rtt_min, rtt_avg, rtt_p50, rtt_p90, rtt_p99, rtt_p999, rtt_max, network_p50, network_p99,
      responder_p50, responder_p99, read_p50, read_p99;
  ProbeRowFields();
};
struct ProbeRow : ProbeRowFields {
  ProbeRow() = default;
  ProbeRow(const ProbeRow& o);
  ProbeRow(ProbeRow&& o) noexcept;
  ProbeRow& operator=(const ProbeRow& o);
  ProbeRow& operator=(ProbeRow&& o) noexcept;
  ~ProbeRow();

 private:
  void Hold() const;
  void Release();
};

// The row IngestProbe stores for p, reported by src: what ProbeRowFromStmt
// reads back from that row, without reading it.
ProbeRow ProbeRowFromInput(const std::string& src, const ProbeInput& p,
                           const std::shared_ptr<const std::string>& report_id);
// The row as HistoryQueries::Probes shows it (every column, "_us" names, parsed errors_by_status).
nlohmann::json ProbeRowJson(const ProbeRow& r);

// An interned copy of s: equal strings give the same pointer. Each call
// takes one hold on the string for the caller, given back with
// ReleaseInterned (a ProbeRow gives back the holds of its fields itself).
// A string without holds stays valid until SweepInterned frees it, so a
// pointer is safe to use while something holds it: the row it came from,
// or an InternedName.
const std::string* Intern(std::string_view s);
void HoldInterned(const std::string* s);     // one more hold; null: nothing
void ReleaseInterned(const std::string* s);  // gives one back; null: nothing
// Frees every interned string without holds (the retention pass calls it);
// returns how many it freed.
size_t SweepInterned();
size_t InternedCount();  // strings in the pool, held or not
// One hold on an interned string for as long as it lives.
class InternedName {
 public:
  explicit InternedName(std::string_view s) : p_(Intern(s)) {}
  InternedName(const InternedName&) = delete;
  InternedName& operator=(const InternedName&) = delete;
  InternedName(InternedName&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  ~InternedName() { ReleaseInterned(p_); }
  const std::string* get() const { return p_; }

 private:
  const std::string* p_;
};
// A hash of up to three interned strings by identity (null counts as a value).
size_t HashInterned(const std::string* a, const std::string* b, const std::string* c = nullptr);

struct PairKey {
  const std::string *dst, *rail, *transport;  // interned; rail may be nullptr
  bool operator==(const PairKey& o) const { return dst == o.dst && rail == o.rail && transport == o.transport; }
};
struct PairKeyHash {
  size_t operator()(const PairKey& k) const;
};
struct PairEntry {
  std::shared_ptr<const ProbeRow> newest;      // newest of any kind
  std::shared_ptr<const ProbeRow> newest_run;  // newest with not_run NULL; may be null
};

// The /metrics aggregate of probe rows (per node and transport): the worst
// quantiles (NaN: none had one), RTT count and sum over rows with both a
// count and an average, probes sent and lost.
struct ProbeAgg {
  double q50, q90, q99, rtt_sum_us = 0;
  int64_t rtt_count = 0, sent = 0, lost = 0;
  ProbeAgg();
  void Add(const ProbeRow& r);
  void Merge(const ProbeAgg& o);
};
// The order of /metrics' worst pairs: higher rtt_p99 first, ties in (src, transport, dst) order.
bool WorseForMetrics(const ProbeRow* a, const ProbeRow* b);

// What /metrics needs from one node's pairs, computed when the node is
// published. "Included": the pairs whose newest row ends at or after
// newest_end - horizon_ms. Covers(since) is true exactly when the included
// pairs are the pairs a scrape with window start `since` reads; then their
// aggregates and worst rows stand for the pairs, else the scrape reads them.
struct MetricsSummary {
  static constexpr size_t kWorstKept = 64;
  int64_t horizon_ms = 0, newest_end = INT64_MIN, oldest_included_end = INT64_MAX;
  const std::string* src = nullptr;                                   // interned; null without pairs
  std::vector<std::pair<const std::string*, ProbeAgg>> by_transport;  // interned transport, by name
  std::vector<const ProbeRow*> worst;  // included rows with an rtt_p99, worst first, at most kWorstKept
  bool Covers(int64_t since) const {
    return newest_end == INT64_MIN || (oldest_included_end >= since && newest_end - horizon_ms <= since);
  }
};

// One cell of the matrix: a node's newest run row toward (dst, transport)
// over its rails, its sort keys copied out of the row.
struct MatrixCell {
  const std::string *dst, *transport, *rail;  // interned; rail may be null
  int64_t interval_end;
  const ProbeRow* row;  // owned by the node's pairs
};

struct NodeState {
  std::string name;
  nlohmann::json labels = nlohmann::json::object();  // parsed nodes.labels (null when it did not parse to an object)
  std::optional<double> interval_s;
  int64_t last_report_at = 0, last_generated_at = 0;
  std::string leaf_switch;  // as ReadModel::NodeInfos computes it; "" unknown
  // Per local port ("device/port"): the GUID of the switch at the other end
  // of its cable, from the node's neighbour report; set by whoever loads the
  // state (empty: unknown, and the pinglists group every rail by leaf_switch).
  std::map<std::string, std::string> port_leaves;
  // Per rail name: the local port ("device/port") its probe rows name, as of
  // the node's publishing. With port_leaves, the node's leaf on each rail.
  std::map<std::string, std::string> rail_ports;
  nlohmann::json ports = nlohmann::json::array();     // ports rows of this node (every column the API shows), in its SQL order
  nlohmann::json counters = nlohmann::json::array();
  nlohmann::json wc_totals = nlohmann::json::array();
  std::unordered_map<PairKey, PairEntry, PairKeyHash> pairs;

  MetricsSummary metrics;  // of `pairs`, as of the node's publishing
  // Of `pairs`, as of the node's publishing: per (dst, transport) the newest
  // run row of any rail (on a tie the lowest rail), ordered by interned pointer.
  std::vector<MatrixCell> matrix_cells;
  PortFamilies port_text;  // /metrics families of `ports` and `counters`, as of the node's publishing
  std::vector<PortListRow> port_list;  // the paged port list's rows of `ports`, as of the node's publishing
  // The newest row of every pair, as of the node's publishing, ordered by
  // (rail, destination, transport) by their interned pointers: what a
  // diagnosis pass reads, from one list it can read ahead in (the pairs' own
  // entries lie all over the heap), in an order the same pairs keep from
  // report to report (a pair's transports side by side, a rail's pairs
  // together), where `pairs` reorders with every rebuild.
  std::vector<const ProbeRow*> newest_rows;
  // The latest interval_end of newest_rows (0: none): the end of the node's
  // newest report round. A pair whose newest row ended well before it is one
  // the node no longer probes (its pinglist changed).
  int64_t newest_end = 0;

  // Keeps row when it is at least as new as what the pair holds.
  void Apply(std::shared_ptr<const ProbeRow> row);
  // Given `older`, the pairs before the rows applied to this state: keeps
  // each of its rows that is strictly newer than what the pair holds. The
  // pairs are then what applying those rows on top of `older` gives, without
  // copying the pairs the rows replaced.
  void MergeOlder(const std::unordered_map<PairKey, PairEntry, PairKeyHash>& older);
  // Keeps the pairs of at most max_destinations destinations: those whose
  // newest row ended last (on a tie the lower name). Returns how many
  // destinations it dropped.
  size_t KeepNewestDestinations(size_t max_destinations);
  // Recomputes `metrics` from `pairs` (read_snapshot_metrics.cpp).
  void SummariseForMetrics(int64_t horizon_ms);
  // Recomputes `matrix_cells` from `pairs` (read_snapshot_matrix.cpp).
  void SummariseForMatrix();
  // Recomputes `rail_ports` from `pairs`: per rail, the local port of its
  // newest row that names one.
  void SummariseRailPorts();
  // Recomputes `newest_rows` and `newest_end` from `pairs`.
  void SummariseNewestRows();
};

class ReadSnapshot {
 public:
  struct View {
    std::vector<std::shared_ptr<const NodeState>> nodes;  // by name
    std::shared_ptr<const nlohmann::json> events_open;    // [{"kind","n"}]
    std::shared_ptr<const nlohmann::json> fabric;         // {"fabric_links","fabric_nodes","fabric_ports"}
    std::shared_ptr<const nlohmann::json> diagnoses_open; // [{"scope","kind","n"}]
    std::shared_ptr<const nlohmann::json> coverage;       // the last diagnosis pass's (null before one)
    std::shared_ptr<const CoverageTargets> coverage_targets;  // the last pass's extra probes (never null)
  };

  View Take() const;
  std::shared_ptr<const NodeState> Node(const std::string& name) const;  // null when unknown

  // Publishes node, first summarising its pairs for /metrics and the
  // matrix, rendering its port families for /metrics and making the rows of
  // the paged port list (port_list.h).
  void PutNode(std::shared_ptr<NodeState> node);
  // Takes node `name` out; returns its state (null when it was not in).
  std::shared_ptr<const NodeState> RemoveNode(const std::string& name);
  void SetEventsOpen(nlohmann::json rows);
  void SetFabric(nlohmann::json parts);
  void SetDiagnosesOpen(nlohmann::json rows);
  void SetCoverage(nlohmann::json coverage);
  void SetCoverageTargets(CoverageTargets targets);
  // The last pass's coverage targets alone (a pinglist asks on every request).
  std::shared_ptr<const CoverageTargets> CoverageTargetsNow() const;
  void Clear();

 private:
  // The default /metrics window (ApiOptions::metrics_probe_window_ms): a
  // scrape with another window is as right, only slower.
  static constexpr int64_t kMetricsHorizonMs = 15LL * 60 * 1000;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const NodeState>> nodes_;
  std::shared_ptr<const nlohmann::json> events_open_ = std::make_shared<nlohmann::json>(nlohmann::json::array());
  std::shared_ptr<const nlohmann::json> fabric_ = std::make_shared<nlohmann::json>(nlohmann::json::object());
  std::shared_ptr<const nlohmann::json> diagnoses_open_ = std::make_shared<nlohmann::json>(nlohmann::json::array());
  std::shared_ptr<const nlohmann::json> coverage_ = std::make_shared<nlohmann::json>(nullptr);
  std::shared_ptr<const CoverageTargets> coverage_targets_ = std::make_shared<const CoverageTargets>();
};

// Answers built from a view (read_snapshot_render.cpp, read_snapshot_matrix.cpp);
// contracts as the Store methods of the same name.
// ReadModel::MatrixText's JSON text.
std::string SnapshotMatrixText(const ReadSnapshot::View& v, int64_t since_ms, int max_rows,
                               const std::optional<std::string>& rail);
nlohmann::json SnapshotWorstPairs(const ReadSnapshot::View& v, int64_t since_ms, int limit);
// Everything of ReadModel::MetricsSnapshot but "thresholds", "worst_pairs_limit",
// "diagnoses_open" and the per-node "ports" and "counters": nodes, wc_totals, events_open, the
// fabric parts; "probe_nodes", one row per (src, transport) aggregating each
// pair's newest row ending at or after probes_since_ms (rtt_p50_max,
// rtt_p90_max, rtt_p99_max: the worst pair's, null when none has one;
// rtt_count and rtt_sum_us over rows with both rtt_count and rtt_avg; sent,
// lost), ordered by src, transport; and "worst_pairs", the worst_pairs rows
// with the highest rtt_p99 (src, dst, transport, rtt_p99), ties in (src,
// transport, dst) order.
nlohmann::json SnapshotMetricsRows(const ReadSnapshot::View& v, int64_t probes_since_ms, int worst_pairs);

}  // namespace rdmascope::collector
