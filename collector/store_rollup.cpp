// Probe rollups (probe_minute, probe_hourly) built from the raw summaries once
// per closed slice of time, and the path for summaries that arrive after
// their slice was rolled. Contract in schemas/migrations/0006_probe_minute.sql.
#include <optional>
#include <string>
#include <vector>

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

// The measures of a slice's raw summaries, in ROLLUP_MEASURES order.
#define SLICE_MEASURES                                                                                     \
  "COUNT(*), SUM(sent), SUM(received), SUM(lost), SUM(error_count), TOTAL(rtt_p50), COUNT(rtt_p50), " \
  "MAX(rtt_p99), MAX(rtt_max)"

// One probe_minute row's worth of a slice, as grouped on the read connection.
struct MinuteRollup {
  std::string src, dst, transport;
  int64_t minute, intervals, sent, received, lost, error_count;
  double rtt_p50_sum;
  int64_t rtt_p50_n;
  std::optional<double> rtt_p99_max, rtt_max;
};

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
  int64_t mark = 0, start = 0, new_mark = 0, read_through_id = 0;
  bool slice = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t closed_until = FloorTo(now_ms - policy.rollup_grace_ms, policy.rollup_slice_ms);
    mark = rollup_through_ms_;
    if (mark + policy.rollup_slice_ms > closed_until) return int64_t{0};

    // Skip time with no raw summaries: the next slice holding one, or, when
    // no summary lies past the mark, everything closed.
    start = closed_until;
    ASSIGN_STMT(first, Q("SELECT MIN(interval_end) FROM probe_summaries WHERE interval_end >= ?1"));
    first.Bind(1, mark);
    auto row = first.Step();
    if (!row.ok()) return row.status();
    if (auto end = first.OptInt(0)) start = std::min(closed_until, FloorTo(*end, policy.rollup_slice_ms));
    first.Reset();
    slice = start + policy.rollup_slice_ms <= closed_until;
    new_mark = slice ? start + policy.rollup_slice_ms : closed_until;
    if (slice) {
      ASSIGN_STMT(last, Q("SELECT COALESCE(MAX(id), 0) FROM probe_summaries"));
      auto r = last.Step();
      if (!r.ok()) return r.status();
      read_through_id = last.Int(0);
      last.Reset();
    }
  }

  // The slice's summaries stored so far (id up to read_through_id), grouped
  // into minutes on a read connection, without the store's lock: reading
  // and grouping is most of a slice's cost. When that read fails, the
  // whole slice is grouped under the lock below instead.
  std::vector<MinuteRollup> grouped;
  if (slice) {
    auto read = History([&](Db& db) -> Result<nlohmann::json> {
      auto q = db.Prepare("SELECT src, dst, transport, interval_end / 60000 * 60000, " SLICE_MEASURES
                          " FROM probe_summaries WHERE interval_end >= ?1 AND interval_end < ?2 AND id <= ?3 "
                          "GROUP BY 1, 2, 3, 4");
      if (!q.ok()) return q.status();
      q.value().Bind(1, start).Bind(2, new_mark).Bind(3, read_through_id);
      for (;;) {
        auto r = q.value().Step();
        if (!r.ok()) return r.status();
        if (!r.value()) break;
        const Stmt& s = q.value();
        grouped.push_back({s.Text(0), s.Text(1), s.Text(2), s.Int(3), s.Int(4), s.Int(5), s.Int(6), s.Int(7),
                           s.Int(8), s.Real(9), s.Int(10), s.OptReal(11), s.OptReal(12)});
      }
      return nlohmann::json();
    });
    if (!read.ok()) {
      grouped.clear();
      read_through_id = 0;
    }
  }
  if (rollup_read_hook_) rollup_read_hook_();

  std::lock_guard<std::mutex> lock(mu_);
  if (rollup_through_ms_ != mark) return int64_t{1};  // rolled meanwhile: the caller asks again
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  if (slice) {
    ASSIGN_STMT(up, Q("INSERT INTO probe_minute(src, dst, transport, minute, " ROLLUP_MEASURES ") "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
                      "ON CONFLICT(src, dst, transport, minute)" ROLLUP_MERGE));
    for (const MinuteRollup& g : grouped) {
      up.Reset();
      up.Bind(1, g.src).Bind(2, g.dst).Bind(3, g.transport).Bind(4, g.minute).Bind(5, g.intervals);
      up.Bind(6, g.sent).Bind(7, g.received).Bind(8, g.lost).Bind(9, g.error_count).Bind(10, g.rtt_p50_sum);
      up.Bind(11, g.rtt_p50_n).Bind(12, g.rtt_p99_max).Bind(13, g.rtt_max);
      RETURN_IF_ERROR(up.Run());
    }
    // What was stored in the slice after the read: below the old mark it
    // was not added as late, so it is added here.
    ASSIGN_STMT(rest, Q("INSERT INTO probe_minute(src, dst, transport, minute, " ROLLUP_MEASURES ") "
                        "SELECT src, dst, transport, interval_end / 60000 * 60000, " SLICE_MEASURES
                        " FROM probe_summaries WHERE interval_end >= ?1 AND interval_end < ?2 AND id > ?3 "
                        "GROUP BY 1, 2, 3, 4 ON CONFLICT(src, dst, transport, minute)" ROLLUP_MERGE));
    rest.Bind(1, start).Bind(2, new_mark).Bind(3, read_through_id);
    RETURN_IF_ERROR(rest.Run());
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

void Store::SetRollupReadHook(std::function<void()> hook) { rollup_read_hook_ = std::move(hook); }

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
