// Hysteresis for diagnoses, by time: a verdict opens once it has been seen in
// open_after consecutive runs, and closes only when it has not been seen for
// close_after report intervals; so a fault that comes and goes keeps one open
// diagnosis instead of flapping. Each return of an open diagnosis after more
// than one report interval without it counts a flap (cited as evidence {"what":"flapping","flaps":N});
// every flap lengthens its close wait by one more interval, up to
// max_flap_intervals more. A key that opens again within reopen_within report
// intervals after it closed is the same fault back: one more flap, its count
// carried on (the store reopens the same diagnosis: ApplyDiagnoses with the
// same window); later, it is a new diagnosis. Every upsert carries its flaps
// in Verdict::flaps. A verdict of scope "unknown" (bad paths that no
// element explains) or "fleet" must also have been seen in consecutive runs
// spanning one interval: they are the weakest verdicts, and a fleet-wide
// stall of a moment must not open them.
//
// One diagnosis per element: a verdict on the scope and subject of an open
// diagnosis refreshes that diagnosis (its kind stays), unless the open one is
// a warning and the new one critical: then the new one opens and the old
// closes.
//
// Contract: pure bookkeeping, no I/O, not thread-safe (one worker owns it).
// Observe() takes the verdicts of one run, the keys open in the store, the
// run's time (ms, non-decreasing) and the report interval (ms); it returns
// what to open or refresh and which open keys to close. A key open in the
// store but unknown to the tracker (a restart) counts its absence from the
// restart on.
#pragma once

#include <cstdint>
#include <map>
#include <set>
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
  std::vector<Verdict> upsert;     // open these, or refresh them when open
  std::vector<std::string> close;  // keys to close
};

class Tracker {
 public:
  explicit Tracker(TrackOptions o = TrackOptions()) : o_(o) {}
  TrackStep Observe(const std::vector<Verdict>& verdicts, const std::set<std::string>& open_keys, int64_t now_ms,
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
  };
  struct Closed {
    int64_t closed_ms = 0;
    int flaps = 0;
  };
  TrackOptions o_;
  std::map<std::string, Streak> seen_;    // key -> consecutive runs seen (not yet open)
  std::map<std::string, Open> open_;      // open key -> when last seen
  std::map<std::string, Closed> closed_;  // key closed within the reopen window -> when, its flaps
};

}  // namespace rdmascope::collector::diagnosis
