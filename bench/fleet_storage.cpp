#include "bench/fleet_storage.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "collector/store/store_db.h"

namespace rdmascope::collector::bench {

namespace {

// Tables that retention keeps for the raw age, and SQLite's indexes on them
// (PostgreSQL's bytes of a table hold its indexes and partitions).
const std::set<std::string> kRaw = {"probe_summaries", "probe_summaries_src_time", "probe_summaries_time",
                                    "counter_port_samples", "counter_port_samples_node_time",
                                    "counter_port_samples_time",
                                    "wc_errors", "fabric_port_samples", "fabric_port_samples_at"};
// Report ids are kept as long as the minute rollups (duplicates of replays).
const std::set<std::string> kIds = {"reports", "reports_received", "reports_received_seq"};
const std::set<std::string> kMinute = {"probe_minute", "probe_minute_minute"};
const std::set<std::string> kHour = {"probe_hourly", "probe_hourly_hour"};

constexpr double kMB = 1048576.0;

}  // namespace

const char* const kPeriodsSql =
    "SELECT (SELECT COUNT(DISTINCT minute) FROM probe_minute), (SELECT COUNT(DISTINCT hour) FROM probe_hourly)";

FleetStorage FleetStorageFrom(const std::map<std::string, double>& bytes, int64_t minutes, int64_t hours, int nodes,
                              double simulated_s, const collector::RetentionPolicy& policy) {
  FleetStorage s;
  for (const auto& [name, b] : bytes)
    (kRaw.count(name)      ? s.raw_bytes
     : kIds.count(name)    ? s.ids_bytes
     : kMinute.count(name) ? s.minute_bytes
     : kHour.count(name)   ? s.hour_bytes
                           : s.other_bytes) += b;
  s.minutes = minutes, s.hours = hours;
  if (nodes <= 0 || simulated_s <= 0 || s.minutes == 0 || s.hours == 0) {
    s.error = "no rolled-up history to measure (run more simulated minutes)";
    return s;
  }
  s.raw_per_node_hour = s.raw_bytes / nodes / (simulated_s / 3600.0);
  s.ids_per_node_hour = s.ids_bytes / nodes / (simulated_s / 3600.0);
  s.minute_per_node_minute = s.minute_bytes / nodes / static_cast<double>(s.minutes);
  s.hour_per_node_hour = s.hour_bytes / nodes / static_cast<double>(s.hours);
  const double raw_h = static_cast<double>(policy.raw_max_age_ms) / 3600000.0;
  const double minute_h = static_cast<double>(policy.minute_max_age_ms) / 3600000.0;
  const double hour_h = static_cast<double>(policy.rollup_max_age_ms) / 3600000.0;
  s.raw_part = s.raw_per_node_hour * raw_h;
  s.minute_part = s.minute_per_node_minute * minute_h * 60 + s.ids_per_node_hour * minute_h;
  s.hour_part = s.hour_per_node_hour * hour_h;
  s.steady_per_node = s.raw_part + s.minute_part + s.hour_part;
  s.ok = true;
  return s;
}

FleetStorage MeasureFleetStorage(const std::string& db_path, int nodes, double simulated_s,
                                 const collector::RetentionPolicy& policy) {
  FleetStorage s;
  auto db = collector::Db::Open(db_path);
  if (!db.ok()) {
    s.error = db.status().message();
    return s;
  }
  auto pages = db.value().Prepare("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name");
  if (!pages.ok()) {
    s.error = pages.status().message();
    return s;
  }
  std::map<std::string, double> bytes;
  for (auto row = pages.value().Step(); row.ok() && row.value(); row = pages.value().Step())
    bytes[pages.value().Text(0)] += static_cast<double>(pages.value().Int(1));
  auto periods = db.value().Prepare(kPeriodsSql);
  if (!periods.ok()) {
    s.error = periods.status().message();
    return s;
  }
  int64_t minutes = 0, hours = 0;
  if (auto row = periods.value().Step(); row.ok() && row.value())
    minutes = periods.value().Int(0), hours = periods.value().Int(1);
  return FleetStorageFrom(bytes, minutes, hours, nodes, simulated_s, policy);
}

bool RollUpWhatIsLeft(collector::Storage& store, const collector::RetentionPolicy& policy, int64_t sim_now, int nodes) {
  using Clock = std::chrono::steady_clock;
  const int64_t later = sim_now + policy.rollup_grace_ms + policy.rollup_slice_ms + 10LL * 60 * 1000;
  int slices = 0;
  double total_ms = 0, longest_ms = 0;
  bool good = true;
  for (;;) {
    const auto s = Clock::now();
    auto n = store.rollups.RollupStep(later, policy);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - s).count();
    if (!n.ok()) {
      std::printf("rollup failed: %s\n", n.status().message().c_str());
      good = false;
      break;
    }
    if (n.value() == 0) break;
    ++slices, total_ms += ms, longest_ms = std::max(longest_ms, ms);
  }
  std::printf("rollup of what is left, %d steps (slices of %lld ms, then the last minutes into hours; %d nodes): "
              "%.0f ms, longest step %.0f ms (%s)\n",
              slices, static_cast<long long>(policy.rollup_slice_ms), nodes, total_ms, longest_ms,
              store.db.sqlite() ? "read without the lock and written under it" : "rolled by the server under the lock");
  return good;
}

void PrintFleetStorage(const FleetStorage& s, const collector::RetentionPolicy& policy, double budget_bytes) {
  if (!s.ok) {
    std::printf("storage: cannot measure: %s\n", s.error.c_str());
    return;
  }
  const double raw_h = static_cast<double>(policy.raw_max_age_ms) / 3600000.0;
  const double minute_d = static_cast<double>(policy.minute_max_age_ms) / 86400000.0;
  const double hour_d = static_cast<double>(policy.rollup_max_age_ms) / 86400000.0;
  std::printf("storage per node, measured: raw %.2f MB per hour (%.1f MB per day if all kept raw), report ids "
              "%.1f kB per hour, minute rollups %.1f kB per minute, hourly rollups %.1f kB per hour\n",
              s.raw_per_node_hour / kMB, s.raw_per_node_hour * 24 / kMB, s.ids_per_node_hour / 1024,
              s.minute_per_node_minute / 1024, s.hour_per_node_hour / 1024);
  std::printf("  (database: raw %.1f MB, report ids %.1f MB, minute rollups %.1f MB over %lld min, hourly %.2f MB over "
              "%lld h, other %.1f MB)\n",
              s.raw_bytes / kMB, s.ids_bytes / kMB, s.minute_bytes / kMB, static_cast<long long>(s.minutes),
              s.hour_bytes / kMB, static_cast<long long>(s.hours), s.other_bytes / kMB);
  std::printf("bytes per node per day at default retention (raw %.0f h, minute rollups %.0f d, hourly %.0f d): "
              "%.1f MB = raw %.1f + minute rollups and report ids %.1f + hourly %.1f; the whole retained "
              "history, so every day of it costs no more (budget %.0f MB): %s\n",
              raw_h, minute_d, hour_d, s.steady_per_node / kMB, s.raw_part / kMB, s.minute_part / kMB, s.hour_part / kMB,
              budget_bytes / kMB, s.steady_per_node <= budget_bytes ? "within" : "OVER");
}

}  // namespace rdmascope::collector::bench
