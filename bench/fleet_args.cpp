#include "bench/fleet_args.h"

#include <cstdio>
#include <string>

#include "bench/bench_args.h"

namespace rdmascope::collector::bench {

bool ParseFleetArgs(int argc, char** argv, FleetArgs* a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) return false;
    const char* text = argv[++i];
    if (k == "--history-speed") {
      if (!ParseNumberFlag(text, &a->history_speed)) return false;
      continue;
    }
    int* field = k == "--capacity-minutes"  ? &a->capacity_minutes
                 : k == "--nodes"           ? &a->nodes
                 : k == "--rails"           ? &a->rails
                 : k == "--targets"         ? &a->targets
                 : k == "--interval-s"      ? &a->interval_s
                 : k == "--minutes"         ? &a->minutes
                 : k == "--clients"         ? &a->clients
                 : k == "--seconds"         ? &a->seconds
                 : k == "--paced-seconds"   ? &a->paced_seconds
                 : k == "--paced-senders"   ? &a->paced_senders
                 : k == "--http-workers"    ? &a->http_workers
                 : k == "--rollup-slice-ms" ? &a->rollup_slice_ms
                                            : nullptr;
    if (!field || !ParseNumberFlag(text, field)) return false;
  }
  return a->nodes >= 2 && a->nodes <= 100000 && a->rails >= 1 && a->rails <= 64 && a->targets >= 1 &&
         a->targets < a->nodes && a->targets <= 256 && a->interval_s >= 1 && a->minutes >= 1 && a->clients >= 1 &&
         a->clients <= 256 && a->seconds >= 1 && a->paced_seconds >= 0 && a->paced_seconds <= 3600 && a->paced_senders >= 1 &&
         (a->history_speed == 0 || (a->history_speed >= 0.1 && a->history_speed <= 100)) && a->capacity_minutes >= 0 &&
         a->paced_senders <= 1024 && a->http_workers >= 1 && a->http_workers <= static_cast<int>(kMaxHttpWorkers) &&
         a->rollup_slice_ms >= 10 && 60000 % a->rollup_slice_ms == 0;
}

void PrintFleetUsage() {
  std::fprintf(stderr,
               "usage: collector_fleet_load [--nodes N (2000)] [--rails R (8)] [--targets T (20)] [--interval-s S (10)]\n"
               "                            [--minutes M of simulated history per history phase (10)]\n"
               "                            [--history-speed X simulated time per real time in those phases (1.5;\n"
               "                                             0: as fast as acknowledged, --clients in flight)]\n"
               "                            [--capacity-minutes M of history sent as fast as acknowledged (2; 0: none)]\n"
               "                            [--clients C reports in flight when sent as fast as acknowledged (32)]\n"
               "                            [--seconds wall-time cap per phase (600)]\n"
               "                            [--paced-seconds S of the phase at the fleet's own rate, in real time (60; 0: none)]\n"
               "                            [--paced-senders P reports in flight at most when sent at due times (256)]\n"
               "                            [--http-workers W the collector's HTTP workers (its default, %zu)]\n"
               "                            [--rollup-slice-ms MS raw time per rollup step, divides a minute (its default, %lld)]\n",
               kDefaultHttpWorkers, static_cast<long long>(RetentionPolicy{}.rollup_slice_ms));
}

}  // namespace rdmascope::collector::bench
