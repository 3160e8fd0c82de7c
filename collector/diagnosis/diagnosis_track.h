// Hysteresis for diagnoses: a verdict opens once it has been seen in
// open_after consecutive runs and closes only after close_after consecutive
// runs without it, so a fault that comes and goes keeps one open diagnosis
// instead of flapping. A verdict of scope "unknown" (bad paths that no
// element explains) must also have been seen in consecutive runs spanning
// unknown_hold_ms: it is the weakest verdict, and a fleet-wide stall of a
// moment (a busy host slows every probe it times for one round) must not
// open it.
//
// Contract: pure bookkeeping, no I/O, not thread-safe (one worker owns it).
// Observe() takes the verdicts of one run, the keys open in the store and the
// run's time (ms, non-decreasing);
// it returns what to open or refresh and which open keys to close. A key
// open in the store but unknown to the tracker (a restart) counts its
// misses from the restart on.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis.h"

namespace rdmascope::collector::diagnosis {

struct TrackOptions {
  int open_after = 1;   // consecutive runs with the verdict before it opens
  int close_after = 2;  // consecutive runs without it before it closes
};

struct TrackStep {
  std::vector<Verdict> upsert;     // open these, or refresh them when open
  std::vector<std::string> close;  // keys to close
};

class Tracker {
 public:
  explicit Tracker(TrackOptions o = TrackOptions()) : o_(o) {}
  TrackStep Observe(const std::vector<Verdict>& verdicts, const std::set<std::string>& open_keys, int64_t now_ms = 0,
                    int64_t unknown_hold_ms = 0);

 private:
  TrackOptions o_;
  struct Streak {
    int runs = 0;
    int64_t since_ms = 0;  // time of the streak's first run
  };
  std::map<std::string, Streak> seen_;  // key -> consecutive runs seen (not yet open)
  std::map<std::string, int> missed_;  // open key -> consecutive runs missed
};

}  // namespace rdmascope::collector::diagnosis
