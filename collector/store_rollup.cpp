// Probe rollups (probe_minute, probe_hourly) built from the raw summaries once
// per closed slice of time, and the path for summaries that arrive after
// their slice was rolled. Contract in schemas/migrations/0006_probe_minute.sql.
#include "collector/store.h"
#include "collector/store_status_macros.h"

namespace rdmascope::collector {

namespace {

constexpr int64_t kMinuteMs = 60LL * 1000;
constexpr int64_t kHourMs = 3600LL * 1000;

int64_t FloorTo(int64_t t, int64_t unit) { return t >= 0 ? t / unit * unit : -((-t + unit - 1) / unit) * unit; }

// The measures both rollups add up, in the order their columns take them.
#define ROLLUP_MEASURES "intervals, sent, received, lost, error_count, rtt_p50_sum, rtt_p50_n, rtt_p99_max, rtt_max"
#define ROLLUP_MERGE                                                                                        \
  " DO UPDATE SET intervals = intervals + excluded.intervals, sent = sent + excluded.sent, "                \
  "received = received + excluded.received, lost = lost + excluded.lost, "                                 \
  "error_count = error_count + excluded.error_count, rtt_p50_sum = rtt_p50_sum + excluded.rtt_p50_sum, "   \
  "rtt_p50_n = rtt_p50_n + excluded.rtt_p50_n, "                                                           \
  "rtt_p99_max = MAX(COALESCE(rtt_p99_max, excluded.rtt_p99_max), COALESCE(excluded.rtt_p99_max, rtt_p99_max)), " \
  "rtt_max = MAX(COALESCE(rtt_max, excluded.rtt_max), COALESCE(excluded.rtt_max, rtt_max))"

}  // namespace

Status Store::LoadRollupMark() {
  auto q = Q("SELECT through_ms FROM rollup_marks WHERE name = 'probe_minute'");
  if (!q.ok()) return q.status();
  auto row = q.value()->Step();
  if (!row.ok()) return row.status();
  rollup_through_ms_ = row.value() ? q.value()->Int(0) : 0;
  q.value()->Reset();
  return Status::Ok();
}

int64_t Store::RollupThroughMs() {
  std::lock_guard<std::mutex> lock(mu_);
  return rollup_through_ms_;
}

Result<int64_t> Store::RollupStep(int64_t now_ms, const RetentionPolicy& policy) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t closed_until = FloorTo(now_ms - policy.rollup_grace_ms, policy.rollup_slice_ms);
  const int64_t mark = rollup_through_ms_;
  if (mark + policy.rollup_slice_ms > closed_until) return int64_t{0};

  // Skip time with no raw summaries: the next slice holding one, or, when no
  // summary lies past the mark, everything closed.
  int64_t start = closed_until;
  {
    ASSIGN_STMT(first, Q("SELECT MIN(interval_end) FROM probe_summaries WHERE interval_end >= ?1"));
    first.Bind(1, mark);
    auto row = first.Step();
    if (!row.ok()) return row.status();
    if (auto end = first.OptInt(0)) start = std::min(closed_until, FloorTo(*end, policy.rollup_slice_ms));
    first.Reset();
  }
  const bool slice = start + policy.rollup_slice_ms <= closed_until;
  const int64_t new_mark = slice ? start + policy.rollup_slice_ms : closed_until;

  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  if (slice) {
    ASSIGN_STMT(minute, Q("INSERT INTO probe_minute(src, dst, transport, minute, " ROLLUP_MEASURES ") "
                          "SELECT src, dst, transport, interval_end / 60000 * 60000, COUNT(*), SUM(sent), "
                          "SUM(received), SUM(lost), SUM(error_count), TOTAL(rtt_p50), COUNT(rtt_p50), MAX(rtt_p99), "
                          "MAX(rtt_max) FROM probe_summaries WHERE interval_end >= ?1 AND interval_end < ?2 "
                          "GROUP BY 1, 2, 3, 4 ON CONFLICT(src, dst, transport, minute)" ROLLUP_MERGE));
    minute.Bind(1, start).Bind(2, new_mark);
    RETURN_IF_ERROR(minute.Run());
  }
  // Every minute that the new mark completes goes into its hour, whole.
  {
    ASSIGN_STMT(hour, Q("INSERT INTO probe_hourly(src, dst, transport, hour, " ROLLUP_MEASURES ") "
                        "SELECT src, dst, transport, minute / 3600000 * 3600000, SUM(intervals), SUM(sent), "
                        "SUM(received), SUM(lost), SUM(error_count), TOTAL(rtt_p50_sum), SUM(rtt_p50_n), "
                        "MAX(rtt_p99_max), MAX(rtt_max) FROM probe_minute WHERE minute >= ?1 AND minute <= ?2 "
                        "GROUP BY 1, 2, 3, 4 ON CONFLICT(src, dst, transport, hour)" ROLLUP_MERGE));
    hour.Bind(1, FloorTo(mark, kMinuteMs)).Bind(2, new_mark - kMinuteMs);
    RETURN_IF_ERROR(hour.Run());
  }
  {
    ASSIGN_STMT(save, Q("INSERT INTO rollup_marks(name, through_ms) VALUES ('probe_minute', ?1) "
                        "ON CONFLICT(name) DO UPDATE SET through_ms = excluded.through_ms"));
    save.Bind(1, new_mark);
    RETURN_IF_ERROR(save.Run());
  }
  RETURN_IF_ERROR(tx.Commit());
  rollup_through_ms_ = new_mark;
  return int64_t{1};
}

Status Store::AddLateSummaryToRollups(const std::string& src, const ProbeInput& s) {
  const int64_t end = s.interval_end;
  const int64_t minute = FloorTo(end, kMinuteMs);
  auto bind = [&](Stmt& st, int64_t period) {
    st.Bind(1, src).Bind(2, s.target).Bind(3, s.transport).Bind(4, period).Bind(5, s.sent).Bind(6, s.received);
    st.Bind(7, s.lost).Bind(8, s.error_count).Bind(9, s.rtt_p50.value_or(0.0));
    st.Bind(10, static_cast<int64_t>(s.rtt_p50 ? 1 : 0)).Bind(11, s.rtt_p99).Bind(12, s.rtt_max);
  };
  {
    ASSIGN_STMT(up, Q("INSERT INTO probe_minute(src, dst, transport, minute, " ROLLUP_MEASURES ") "
                      "VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
                      "ON CONFLICT(src, dst, transport, minute)" ROLLUP_MERGE));
    bind(up, minute);
    RETURN_IF_ERROR(up.Run());
  }
  // A minute the mark has not passed whole reaches its hour when it does.
  if (minute + kMinuteMs > rollup_through_ms_) return Status::Ok();
  ASSIGN_STMT(up, Q("INSERT INTO probe_hourly(src, dst, transport, hour, " ROLLUP_MEASURES ") "
                    "VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
                    "ON CONFLICT(src, dst, transport, hour)" ROLLUP_MERGE));
  bind(up, FloorTo(end, kHourMs));
  return up.Run();
}

}  // namespace rdmascope::collector
