// What the diagnosis reads from the store, and the verdicts it keeps there.
//
// Contract:
//  - DiagnosisFacts: the rows the analysis reads (diagnosis_input.cpp turns
//    them into its input; the probe summaries it takes from the read model):
//    "ports" every port's state;
//    "moved" counters whose newest sample (at or after since_ms) rose over
//    the one before, looking back no further than counters_from_ms
//    (<= since_ms): node, device, port, kind, name and delta, the delta of
//    the counter rules (common/counter_rules.h: a wrap counts what it
//    counted past the top, a reset or a new boot id the new value), which
//    the writer keeps with each counter's newest value; ordered by node,
//    device, port, kind, name; "switch" the switch port at the other end of each node
//    port with the error counters of its two newest samples; "fabric_moved"
//    the two newest samples of every fabric port sampled at or after
//    since_ms (newest first); "neighbours" the switch (GUID) each node port
//    is cabled to. Cost: bounded
//    by the rows inside the window, not by the history kept ("moved": by the
//    counters that rose, read from an index of them). Read on a
//    read-only connection, never under the writer's lock, and stopped at the
//    query deadline; so are OpenDiagnosisKeys and Diagnoses.
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
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/core/verdict.h"
#include "collector/store/snapshot_loader.h"
#include "collector/store/writer_db.h"

namespace rdmascope::collector {

// The "moved" part's SQL (?1 since_ms, ?2 counters_from_ms), named so that a
// test can hold its query plan to the index counters_latest_error_rose.
extern const char kDiagnosisMovedSql[];
// ApplyDiagnoses' lookups of an element's open diagnosis (to refresh or
// escalate it) and of its newest closed one (to reopen it), named so that a
// test can hold their plans to the key indexes.
extern const char kDiagnosisRefreshSql[];
extern const char kDiagnosisReopenSql[];

class DiagnosisRecords {
 public:
  DiagnosisRecords(WriterDb& w, SnapshotLoader& loader) : w_(w), mu_(w.mu()), db_(w.db()), loader_(loader) {}

  Result<nlohmann::json> DiagnosisFacts(int64_t since_ms, int64_t counters_from_ms);
  Result<diagnosis::OpenDiagnoses> OpenDiagnosisKeys();
  Status ApplyDiagnoses(const std::vector<diagnosis::Verdict>& upsert, const std::vector<std::string>& close,
                        int64_t now_ms, int64_t reopen_within_ms = 0);
  Result<nlohmann::json> Diagnoses(bool include_closed, int limit);

 private:
  Result<Stmt*> Q(const char* sql) { return w_.Q(sql); }
  Result<nlohmann::json> History(const std::function<Result<nlohmann::json>(Db&)>& fn) { return w_.History(fn); }
  WriterDb& w_;
  std::mutex& mu_;
  Db& db_;
  SnapshotLoader& loader_;
};

}  // namespace rdmascope::collector
