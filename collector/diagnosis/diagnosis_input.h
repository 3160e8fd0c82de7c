// The diagnosis's input read from the Store (the adapter around the pure
// Diagnose(); another source, e.g. an in-memory snapshot, can fill the same
// diagnosis::Input).
//
// Contract:
//  - The report interval is the collector's configuration
//    (report_interval_ms), never what reports say: no node token sets the
//    fleet's pace. Paths are the newest summary per (src, dst, rail,
//    transport) that ended within window_intervals of now and in its
//    source's newest report round (within half an interval of the source's
//    newest summary: a pair the source no longer probes, after its pinglist
//    changed, is left out), as the read model holds them (no SQL: a million
//    pairs at fleet size).
//  - A node is silent when its last report is older than silent_intervals
//    of its own interval; its own (old) summaries are left out.
//  - A node's group: labels[group_label], else "leaf:<switch GUID>", else ""
//    (the pinglist's rule); a path's ends are grouped per rail: without the
//    label, by the leaf switch the end's device is cabled to.
//  - Counters that moved: error counters only (IsErrorCounter of
//    collector/rules/error_counters.h), delta of the newest sample.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_path_blocks.h"
#include "collector/store/storage.h"
#include "fabric/routes.h"

namespace rdmascope::collector {

struct DiagnosisSourceOptions {
  std::string group_label = "group";
  double window_intervals = 2.5;
  double silent_intervals = 1.5;
  int64_t report_interval_ms = 10000;  // the fleet's report interval (configuration)
};

// Error counters of fabric ports (sweeps) that rose in the window, by port.
using FabricCounterRises = std::map<fabric::PortRef, std::vector<diagnosis::CounterDelta>>;

// What LoadDiagnosisInput keeps from one pass to the next so that it refills
// only the paths of nodes whose state changed (diagnosis_path_blocks.h): the
// blocks, and what the kept paths' group numbers were taken from; and the
// store's rows, read again into the same lists each pass. With it,
// Input::names and Input::group_names are kept too (the kept paths' ids index
// them); a change of groups or a name list grown well past the fleet's
// renumbers everything. One cache per Input.
struct DiagnosisInputCache {
  PathBlocks blocks;
  std::map<std::string, bool> labelled;                                   // node -> has the group label
  std::map<std::pair<std::string, std::string>, std::string> leaf;        // (node, device) -> "leaf:<GUID>"
  size_t names_numbered = 0;  // Input::names' size after the last full refill
  DiagnosisFactRows facts;    // the store's rows of the last pass: their memory is read into again
};

// rises (optional): the fabric ports' error counters whose newest sample,
// in the window, rose over the one before.
Result<diagnosis::Input> LoadDiagnosisInput(Storage& store, int64_t now_ms, const DiagnosisSourceOptions& o,
                                            FabricCounterRises* rises = nullptr);
// The same into *into (all of it replaced), keeping the memory of its path
// list and of its port list: a pass at 2,000 nodes x 8 rails fills about
// 150 MB of paths, and pages fresh from the kernel each pass were a third
// of the pass's CPU.
// cache (optional): keeps unchanged nodes' paths (see DiagnosisInputCache),
// and leaves Input::elements as the last pass had them, for the router to
// overwrite (PathRouter::Resolve assigns all of them: their strings' memory
// is reused, not allocated again for every cable of the fabric).
Status LoadDiagnosisInput(Storage& store, int64_t now_ms, const DiagnosisSourceOptions& o, diagnosis::Input* into,
                          FabricCounterRises* rises = nullptr, DiagnosisInputCache* cache = nullptr);

}  // namespace rdmascope::collector
