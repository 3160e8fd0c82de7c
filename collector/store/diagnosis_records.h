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
//  - ApplyDiagnoses: one transaction opens (or refreshes the evidence of)
//    every verdict of upsert and closes the open diagnoses of close at
//    now_ms; then the read model's count of open diagnoses follows. A
//    verdict with no open diagnosis whose key closed at or after
//    now_ms - reopen_within_ms (> 0) reopens that row (the newest such):
//    closed_at back to NULL, flaps + 1, opened_at and since_at kept: one
//    fault, one diagnosis. flaps is never lowered: the larger of the stored
//    count (+1 on a reopen) and the verdict's.
//  - Diagnoses: {"diagnoses":[...]}: open ones (critical first, newest
//    first); with include_closed also closed ones after them. Each with its
//    runs and flaps.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
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

class DiagnosisRecords {
 public:
  DiagnosisRecords(WriterDb& w, SnapshotLoader& loader) : w_(w), mu_(w.mu()), db_(w.db()), loader_(loader) {}

  Result<nlohmann::json> DiagnosisFacts(int64_t since_ms, int64_t counters_from_ms);
  Result<std::set<std::string>> OpenDiagnosisKeys();
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
