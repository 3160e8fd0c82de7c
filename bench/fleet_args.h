// The fleet load tool's settings: the fleet's size and pacing from the
// command line (bounded, so a typo cannot ask for an unbounded run), and the
// fixed ones every part of the tool shares.
#pragma once

#include <cstdint>

#include "collector/http/http_workers.h"
#include "collector/store/storage.h"

namespace rdmascope::collector::bench {

constexpr int64_t kFleetStartMs = 1750000000000;  // simulated start
constexpr char kFleetToken[] = "fleet-load-token";

struct FleetArgs {
  int nodes = 2000, rails = 8, targets = 20, interval_s = 10, minutes = 10, clients = 32, seconds = 600;
  int paced_seconds = 60, paced_senders = 256, capacity_minutes = 2;
  double history_speed = 1.5;  // simulated time per real time in the history phases; 0: as fast as acknowledged
  int http_workers = static_cast<int>(kDefaultHttpWorkers);  // the collector's own default
  int rollup_slice_ms = static_cast<int>(RetentionPolicy{}.rollup_slice_ms);  // the collector's own default
  // Seconds a report no collector took (no answer, or 5xx) is held and sent
  // again, as an agent's spool does; 0: it counts as failed at once.
  int hold_s = 0;
};

// Reads --flag value pairs into *a; false when a flag is unknown, a value is
// not a number, or the result is out of bounds.
bool ParseFleetArgs(int argc, char** argv, FleetArgs* a);

// The usage text, on stderr.
void PrintFleetUsage();

}  // namespace rdmascope::collector::bench
