// What the diagnosis reads from the store, and the verdicts it keeps there.
//
// Contract:
//  - DiagnosisFacts: the rows the analysis reads (diagnosis_input.cpp turns
//    them into its input; the probe summaries it takes from the read model),
//    as DiagnosisFactRows:
//    ports: every port's state, ordered by node, device, port;
//    moved: counters whose newest sample (at or after since_ms) rose over
//    the one before, looking back no further than counters_from_ms
//    (<= since_ms): node, device, port, kind, name and delta, the delta of
//    the counter rules (common/counter_rules.h: a wrap counts what it
//    counted past the top, a reset or a new boot id the new value), which
//    the writer keeps with each counter's newest value; ordered by node,
//    device, port, kind, name;
//    neighbours: every node_neighbours row (the switch port each node port
//    is cabled to), ordered by node, device, port, with switch_rises the
//    error counters of that switch port whose newest sample (at or after
//    since_ms) rose over the one before (empty else);
//    fabric_rises: every fabric port whose newest sample is at or after
//    since_ms and rose over the one before, with those error counters,
//    ordered by guid, port.
//    Rises (by name, with their delta) are SampleErrorRises
//    (collector/rules/link_rules.h), which the writer keeps in
//    fabric_port_rises for each port's newest sample. Cost: bounded by the
//    ports and neighbours and the rows that rose, not by the history kept
//    ("moved" and the rises read from indexes of what rose). Read on a
//    read-only connection, never under the writer's lock, and stopped at the
//    query deadline; so are OpenDiagnosisKeys and Diagnoses. The form with
//    `into` clears its lists and fills them again, the lists' own memory
//    kept (a pass reads every port of the fleet; a caller that keeps the
//    rows between passes does not grow the lists again; each row's strings
//    are still made anew); after an error *into holds part of them.
//  - OpenDiagnosisKeys: the open diagnoses, key -> severity and evidence.
//  - ApplyDiagnoses: one transaction closes the open diagnoses of close at
//    now_ms, then applies every verdict of upsert; then the read model's
//    count of open diagnoses follows. A verdict goes to the open diagnosis
//    of its element (scope and subject), whatever that one's kind: the same
//    row (id, opened_at, since_at kept) takes the verdict's key, kind,
//    severity, confidence, evidence and paths, one more run; so an
//    escalation (the tracker's decision) is an UPDATE of that row, never a
//    close and a new row. With none open, a diagnosis of the element closed
//    at or after now_ms - reopen_within_ms (> 0) is reopened (the newest
//    such): closed_at back to NULL, flaps + 1, the verdict's key and kind,
//    opened_at and since_at kept: one fault, one diagnosis. Else a new row.
//    flaps is never lowered: the larger of the stored count (+1 on a reopen)
//    and the verdict's. Each lookup is a range of the key indexes (keys of
//    one element share the prefix scope|subject|).
//  - Diagnoses: {"diagnoses":[...]}: open ones (critical first, newest
//    first); with include_closed also closed ones after them. Each with its
//    runs and flaps.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/core/verdict.h"
#include "collector/store/snapshot_loader.h"
#include "collector/store/writer_db.h"

namespace rdmascope::collector {

// What DiagnosisFacts reads (see the contract above).
struct DiagnosisFactRows {
  struct Rise {
    std::string name;
    int64_t delta = 0;
  };
  struct Port {
    std::string node, device;
    int64_t port = 0;
    std::optional<int64_t> state;  // NULL: unknown
    std::string state_name;        // "" when NULL
  };
  struct Moved {
    std::string node, device;
    int64_t port = 0;
    std::string kind, name;
    int64_t delta = 0;
  };
  struct Neighbour {
    std::string node, device;
    int64_t port = 0;
    std::string switch_guid, switch_description;
    int64_t switch_port = 0;
    std::vector<Rise> switch_rises;  // by name
  };
  struct FabricRise {
    std::string guid;
    int64_t port = 0;
    int64_t at = 0;
    std::vector<Rise> rises;  // by name
  };
  std::vector<Port> ports;
  std::vector<Moved> moved;
  std::vector<Neighbour> neighbours;
  std::vector<FabricRise> fabric_rises;
};

// The "moved" part's SQL (?1 since_ms, ?2 counters_from_ms), named so that a
// test can hold its query plan to the index counters_latest_error_rose.
extern const char kDiagnosisMovedSql[];
// The "neighbours" and "fabric_rises" parts' SQL (?1 since_ms), named so
// that a test can hold their plans to the keys and the index on at.
extern const char kDiagnosisNeighboursSql[];
extern const char kDiagnosisFabricRisesSql[];
// ApplyDiagnoses' lookups of an element's open diagnosis (to refresh or
// escalate it) and of its newest closed one (to reopen it), named so that a
// test can hold their plans to the key indexes.
extern const char kDiagnosisRefreshSql[];
extern const char kDiagnosisReopenSql[];

class DiagnosisRecords {
 public:
  DiagnosisRecords(WriterDb& w, SnapshotLoader& loader) : w_(w), mu_(w.mu()), db_(w.conn()), loader_(loader) {}

  Result<DiagnosisFactRows> DiagnosisFacts(int64_t since_ms, int64_t counters_from_ms);
  Status DiagnosisFacts(int64_t since_ms, int64_t counters_from_ms, DiagnosisFactRows* into);
  Result<diagnosis::OpenDiagnoses> OpenDiagnosisKeys();
  Status ApplyDiagnoses(const std::vector<diagnosis::Verdict>& upsert, const std::vector<std::string>& close,
                        int64_t now_ms, int64_t reopen_within_ms = 0);
  Result<nlohmann::json> Diagnoses(bool include_closed, int limit);

 private:
  Result<SqlStmt*> Q(const char* sql) { return w_.Q(sql); }
  Result<nlohmann::json> History(const std::function<Result<nlohmann::json>(SqlConn&)>& fn) { return w_.History(fn); }
  WriterDb& w_;
  std::mutex& mu_;
  SqlConn& db_;
  SnapshotLoader& loader_;
};

}  // namespace rdmascope::collector
