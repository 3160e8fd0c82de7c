// Hysteresis for diagnoses, by time: a verdict opens once its element has
// been seen in open_after consecutive runs, and closes only when it has not been seen for
// close_after report intervals; so a fault that comes and goes keeps one open
// diagnosis instead of flapping. Each return of an open diagnosis after more
// than one report interval without it counts a flap (cited as evidence {"what":"flapping","flaps":N});
// every flap lengthens its close wait by one more interval, up to
// max_flap_intervals more. An element that opens again within reopen_within
// report intervals after its diagnosis closed is the same fault back: one
// more flap, its count carried on (the store reopens the same diagnosis:
// ApplyDiagnoses with the same window); later, it is a new diagnosis. Every upsert carries its flaps
// in Verdict::flaps. A verdict of scope "unknown" (bad paths that no
// element explains) or "fleet" must also have been seen in consecutive runs
// spanning one interval: they are the weakest verdicts, and a fleet-wide
// stall of a moment must not open them.
//
// One diagnosis per element (scope and subject), whatever its kind: a
// verdict on the element of an open diagnosis refreshes that diagnosis. When
// the verdict is worse — more severe (critical over warning), or as severe
// and of a worse kind (access > rnr > unreachable > port_down > loss >
// latency > host_busy > link_errors: a lossy host that stops answering at
// all) — the diagnosis ESCALATES IN PLACE: the same row (same id, opened_at, flaps) takes the verdict's kind,
// severity and key, and from then on its evidence cites what it was before,
// {"what":"escalated","from_kind":K,"from_severity":S,"at_ms":T} (one per
// escalation, kept while it is open and across a reopen). A verdict no worse
// keeps the open kind and severity: an open diagnosis never gets
// milder until it closes. Closing, flaps and the reopen window go by element:
// a return of the element within the window reopens its diagnosis whatever
// the kind, keeping the worse of the closed one's kind and the new one's
// (escalating when the new one is worse). Streaks before opening also
// count by element. Were two diagnoses open on one element (rows written
// before this rule), the more severe one is kept and the other closed.
//
// Contract: pure bookkeeping, no I/O, not thread-safe (one worker owns it).
// Observe() takes the verdicts of one run (critical first, as Diagnose sorts
// them: the first verdict on an element in a run is the one that counts),
// the diagnoses open in the store (key -> severity and evidence), the run's
// time (ms, non-decreasing) and the report interval (ms); it returns what to
// open or refresh and which open keys to close. An upsert carries the key
// the element's open row must take; the store updates the element's open row
// in place (DiagnosisRecords::ApplyDiagnoses). A key open in the store but
// unknown to the tracker (a restart) counts its absence from the restart on
// and takes its escalations back from its stored evidence.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"

namespace rdmascope::collector::diagnosis {

struct TrackOptions {
  int open_after = 1;             // consecutive runs with the verdict before it opens
  int close_after = 2;            // report intervals without it before it closes
  int max_flap_intervals = 6;     // most intervals flaps add to the close wait
  int reopen_within = 6;          // report intervals after closing in which a return reopens it
};

struct TrackStep {
  std::vector<Verdict> upsert;     // open these, or refresh (escalate) the open diagnosis of their element
  std::vector<std::string> close;  // keys to close
  std::map<std::string, std::string> escalated;  // open key -> the key it escalated to in this run
};

class Tracker {
 public:
  explicit Tracker(TrackOptions o = TrackOptions()) : o_(o) {}
  TrackStep Observe(const std::vector<Verdict>& verdicts, const OpenDiagnoses& open, int64_t now_ms,
                    int64_t interval_ms);

 private:
  struct Streak {
    int runs = 0;
    int64_t since_ms = 0;  // time of the streak's first run
  };
  struct Open {
    int64_t last_seen_ms = 0;
    bool missed = false;  // the last run did not see it
    int flaps = 0;
    std::string severity;                                     // as stored
    nlohmann::json escalated = nlohmann::json::array();       // its "escalated" evidence entries
  };
  struct Closed {
    int64_t closed_ms = 0;
    int flaps = 0;
    std::string kind, severity;
    nlohmann::json escalated = nlohmann::json::array();
  };
  TrackOptions o_;
  std::map<std::string, Streak> seen_;    // element -> consecutive runs seen (not yet open)
  std::map<std::string, Open> open_;      // open key -> when last seen
  std::map<std::string, Closed> closed_;  // element closed within the reopen window -> when, its flaps, kind
};

}  // namespace rdmascope::collector::diagnosis
