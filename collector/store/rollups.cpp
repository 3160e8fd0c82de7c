// Probe rollups (probe_minute, probe_hourly) built from the raw summaries once
// per closed slice of time, and the path for summaries that arrive after
// their slice was rolled. Contract in schemas/migrations/0006_probe_minute.sql,
// but for probe_hourly: it holds the whole minutes below rollup_marks'
// 'probe_hourly' (saved with the minute mark of its step, 'probe_hourly_at'),
// which trails the minute mark by up to ten minutes.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collector/store/rollups.h"
#include "collector/store/pg_locks.h"
#include "collector/store/saturating_sql.h"
#include "collector/store/store_status_macros.h"

namespace rdmascope::collector {

namespace {

constexpr int64_t kMinuteMs = 60LL * 1000;
constexpr int64_t kHourMs = 3600LL * 1000;
// Completed minutes reach probe_hourly in stretches this long (a divisor of
// the hour): each stretch upserts one row per (pair, hour) under the store's
// lock, 80,000 rows at 2,000 nodes, so per minute that cost the ingest a
// stall every minute; per ten minutes it is a tenth.
constexpr int64_t kHourlyMergeMs = 10 * kMinuteMs;

int64_t FloorTo(int64_t t, int64_t unit) { return t >= 0 ? t / unit * unit : -((-t + unit - 1) / unit) * unit; }

// Sums that cannot fail. An integer SUM() raises "integer overflow" (and a
// failing slice would hold the rollup mark, and with it the raw retention);
// the validator bounds each count to 2^40, yet enough summaries of one pair
// in one minute still add up past 2^63. So sums are taken in floating point
// (exact below 2^53) and every sum and merge is capped at 2^62 (SUM_CAP and
// SAT_MERGE, saturating_sql.h: the writer's running counts too); a merge adds
// what still fits below the cap, so it never overflows either. Written once
// for both engines: DOUBLE PRECISION is a REAL to SQLite, and LEAST and
// GREATEST (NULLs ignored) are PostgreSQL's, which SQLite's connections have
// too (store_db.h).
#define FLOAT_SUM(X) "COALESCE(SUM(CAST(" X " AS DOUBLE PRECISION)), 0)"
#define SAT_SUM(X) "CAST(LEAST(" FLOAT_SUM(X) ", " SUM_CAP ".0) AS BIGINT)"

// The measures both rollups add up, in the order their columns take them.
#define ROLLUP_MEASURES "intervals, sent, received, lost, error_count, rtt_p50_sum, rtt_p50_n, rtt_p99_max, rtt_max"
// The merge of a rollup row of table T with the one being inserted.
#define ROLLUP_MERGE(T)                                                                                        \
  " DO UPDATE SET " SAT_MERGE(T, "intervals") ", " SAT_MERGE(T, "sent") ", " SAT_MERGE(T, "received") ", "      \
  SAT_MERGE(T, "lost") ", " SAT_MERGE(T, "error_count") ", rtt_p50_sum = " T ".rtt_p50_sum + excluded.rtt_p50_sum, " \
  SAT_MERGE(T, "rtt_p50_n") ", rtt_p99_max = GREATEST(" T ".rtt_p99_max, excluded.rtt_p99_max), "                   \
  "rtt_max = GREATEST(" T ".rtt_max, excluded.rtt_max)"

// The measures of a slice's raw summaries, in ROLLUP_MEASURES order.
#define SLICE_MEASURES                                                                                   \
  "COUNT(*), " SAT_SUM("sent") ", " SAT_SUM("received") ", " SAT_SUM("lost") ", " SAT_SUM("error_count") \
  ", " FLOAT_SUM("rtt_p50") ", COUNT(rtt_p50), MAX(rtt_p99), MAX(rtt_max)"

// The hours of the minutes in [FROM, TO) of probe_minute, summed, in
// ROLLUP_MEASURES order after (src, dst, transport, hour).
#define HOURS_OF_MINUTES(FROM, TO)                                                                    \
  "SELECT src, dst, transport, minute / 3600000 * 3600000, " SAT_SUM("intervals") ", " SAT_SUM("sent") ", " \
  SAT_SUM("received") ", " SAT_SUM("lost") ", " SAT_SUM("error_count") ", " FLOAT_SUM("rtt_p50_sum") ", "              \
  SAT_SUM("rtt_p50_n") ", MAX(rtt_p99_max), MAX(rtt_max) "                                                   \
  "FROM probe_minute WHERE minute >= " FROM " AND minute < " TO " GROUP BY 1, 2, 3, 4"

// One late summary added to its minute or its hour: ?1 src, ?2 dst,
// ?3 transport, ?4 period, then ?5.. its measures (Rollups::AddOneLateSummary).
#define UPSERT_ONE(TABLE, PERIOD)                                                               \
  "INSERT INTO " TABLE "(src, dst, transport, " PERIOD ", " ROLLUP_MEASURES ") "                 \
  "VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) ON CONFLICT(src, dst, transport, " PERIOD ")" ROLLUP_MERGE(TABLE)
constexpr const char* kMinuteUpsertOne = UPSERT_ONE("probe_minute", "minute");
constexpr const char* kHourlyUpsertOne = UPSERT_ONE("probe_hourly", "hour");

}  // namespace

struct Rollups::Rollup {
  std::string src, dst, transport;
  int64_t period, intervals, sent, received, lost, error_count;
  double rtt_p50_sum;
  int64_t rtt_p50_n;
  std::optional<double> rtt_p99_max, rtt_max;
};

Status Rollups::ReadRollups(SqlStmt& q, std::vector<Rollup>* out) {
  for (;;) {
    auto r = q.Step();
    if (!r.ok()) return r.status();
    if (!r.value()) return Status::Ok();
    out->push_back({q.Text(0), q.Text(1), q.Text(2), q.Int(3), q.Int(4), q.Int(5), q.Int(6), q.Int(7), q.Int(8),
                    q.Real(9), q.Int(10), q.OptReal(11), q.OptReal(12)});
  }
}

Status Rollups::WriteRollups(SqlStmt& up, const std::vector<Rollup>& rows) {
  for (const Rollup& g : rows) {
    up.Reset();
    up.Bind(1, g.src).Bind(2, g.dst).Bind(3, g.transport).Bind(4, g.period).Bind(5, g.intervals);
    up.Bind(6, g.sent).Bind(7, g.received).Bind(8, g.lost).Bind(9, g.error_count).Bind(10, g.rtt_p50_sum);
    up.Bind(11, g.rtt_p50_n).Bind(12, g.rtt_p99_max).Bind(13, g.rtt_max);
    if (Status s = up.Run(); !s.ok()) return s;
  }
  return Status::Ok();
}


Status Rollups::LoadRollupMark() {
  auto q = Q("SELECT name, through_ms FROM rollup_marks WHERE name IN ('probe_minute', 'probe_hourly', "
             "'probe_hourly_at')");
  if (!q.ok()) return q.status();
  std::map<std::string, int64_t> marks;
  for (;;) {
    auto row = q.value()->Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    marks[q.value()->Text(0)] = q.value()->Int(1);
  }
  q.value()->Reset();
  rollup_through_ms_ = marks.count("probe_minute") ? marks["probe_minute"] : 0;
  // The hourly mark holds when it was saved with the minute mark as it
  // stands ('probe_hourly_at'). Otherwise (none yet, or a version that
  // merges each minute as it completes has run since) every whole minute
  // below the minute mark is merged.
  hourly_through_ms_ = FloorTo(rollup_through_ms_, kMinuteMs);
  if (marks.count("probe_hourly") && marks.count("probe_hourly_at") && marks["probe_hourly_at"] == rollup_through_ms_)
    hourly_through_ms_ = std::min(hourly_through_ms_, marks["probe_hourly"]);
  return Status::Ok();
}

int64_t Rollups::RollupThroughMs() {
  std::lock_guard<std::mutex> lock(mu_);
  return rollup_through_ms_;
}

Result<int64_t> Rollups::RollupStep(int64_t now_ms, const RetentionPolicy& policy) {
  return RollOrSkip(now_ms, policy, /*skip=*/false);
}

Result<int64_t> Rollups::SkipRollupStep(int64_t now_ms, const RetentionPolicy& policy) {
  return RollOrSkip(now_ms, policy, /*skip=*/true);
}

Result<int64_t> Rollups::RollOrSkip(int64_t now_ms, const RetentionPolicy& policy, bool skip) {
  StepPlan p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto planned = PlanStep(now_ms, policy, skip, &p);
    if (!planned.ok()) return planned.status();
    if (!planned.value()) return int64_t{0};
  }
  // Whatever happens below, the read of the minutes ends with the step.
  struct EndHourlyReadAtExit {
    Rollups* store;
    bool pinned;
    ~EndHourlyReadAtExit() {
      if (pinned) store->EndHourlyRead();
    }
  } end_hourly_read{this, p.hourly_pinned};

  // Reading and grouping is most of a step's cost: on SQLite done without
  // the lock, on a connection of its own. PostgreSQL groups and merges the
  // slice itself, in one statement under the lock (WriteSliceMinutes from
  // id 0): a slice is tens of thousands of groups at fleet size, and writing
  // them back one statement each is as many round trips under the lock.
  std::vector<Rollup> grouped, hours;
  if (p.slice && !skip && w_.sqlite()) ReadSliceMinutes(&p, &grouped);
  const bool hours_read = p.hourly_pinned && ReadHoursOfMinutes(p, &hours);
  if (rollup_read_hook_) rollup_read_hook_();

  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  if (!w_.sqlite()) {  // the marks as every collector's writer sees them, held still
    RETURN_IF_ERROR(db_.Exec(kPgRollupXactLockSql));
    RETURN_IF_ERROR(LoadRollupMark());
  }
  if (rollup_through_ms_ != p.mark || hourly_through_ms_ != p.hourly_from)
    return int64_t{1};  // rolled meanwhile (here or by another collector): the caller asks again
  if (p.slice && !skip) RETURN_IF_ERROR(WriteSliceMinutes(p, grouped));
  if (p.hourly_from < p.hourly_to && !skip) RETURN_IF_ERROR(WriteHours(p, hours_read, hours));
  RETURN_IF_ERROR(SaveMarks(p.new_mark, p.hourly_to));
  RETURN_IF_ERROR(tx.Commit());
  rollup_through_ms_ = p.new_mark;
  hourly_through_ms_ = p.hourly_to;
  return int64_t{1};
}

Result<bool> Rollups::PlanStep(int64_t now_ms, const RetentionPolicy& policy, bool skip, StepPlan* p) {
  const int64_t closed_until = FloorTo(now_ms - policy.rollup_grace_ms, policy.rollup_slice_ms);
  p->mark = p->new_mark = rollup_through_ms_;
  // The whole stretches of minutes the mark completed in earlier steps:
  // no slice adds to them any more, only late summaries.
  p->hourly_from = hourly_through_ms_;
  p->hourly_to = FloorTo(p->mark, kHourlyMergeMs);
  const bool hourly = p->hourly_from < p->hourly_to && hourly_reading_to_ == 0;
  const bool closed = p->mark + policy.rollup_slice_ms <= closed_until;
  if (!closed && !hourly) return false;
  if (closed) RETURN_IF_ERROR(FindSlice(closed_until, policy, skip, p));
  // A skip passes over the slice alone when there is one (the minutes
  // are merged by the next step), else over the minutes.
  if (skip && closed) p->hourly_to = p->hourly_from;
  if (hourly && !skip) p->hourly_pinned = PinRollupReader();
  if (p->hourly_pinned) {
    // From here on, a late summary in these minutes is not in the pinned
    // read: it is owed to probe_hourly and added by the step.
    hourly_reading_from_ = p->hourly_from;
    hourly_reading_to_ = p->hourly_to;
    hourly_owed_.clear();
  } else if (!hourly) {
    p->hourly_to = p->hourly_from;  // nothing to merge in this step
  }
  return true;
}

Status Rollups::FindSlice(int64_t closed_until, const RetentionPolicy& policy, bool skip, StepPlan* p) {
  // Skip time with no raw summaries: the next slice holding one, or, when
  // no summary lies past the mark, everything closed.
  p->start = closed_until;
  ASSIGN_STMT(first, Q("SELECT MIN(interval_end) FROM probe_summaries WHERE interval_end >= ?1"));
  first.Bind(1, p->mark);
  auto row = first.Step();
  if (!row.ok()) return row.status();
  if (auto end = first.OptInt(0)) p->start = std::min(closed_until, FloorTo(*end, policy.rollup_slice_ms));
  first.Reset();
  p->slice = p->start + policy.rollup_slice_ms <= closed_until;
  p->new_mark = p->slice ? p->start + policy.rollup_slice_ms : closed_until;
  if (p->slice && !skip && w_.sqlite()) {  // the read without the lock goes up to here
    ASSIGN_STMT(last, Q("SELECT COALESCE(MAX(id), 0) FROM probe_summaries"));
    auto r = last.Step();
    if (!r.ok()) return r.status();
    p->read_through_id = last.Int(0);
    last.Reset();
  }
  return Status::Ok();
}

void Rollups::ReadSliceMinutes(StepPlan* p, std::vector<Rollup>* grouped) {
  // When this read fails, the whole slice is grouped under the lock instead
  // (WriteSliceMinutes, from id 0).
  auto read = History([&](SqlConn& db) -> Result<nlohmann::json> {
    auto q = db.Q("SELECT src, dst, transport, interval_end / 60000 * 60000, " SLICE_MEASURES
                        " FROM probe_summaries WHERE interval_end >= ?1 AND interval_end < ?2 AND id <= ?3 "
                        "GROUP BY 1, 2, 3, 4");
    if (!q.ok()) return q.status();
    q.value()->Bind(1, p->start).Bind(2, p->new_mark).Bind(3, p->read_through_id);
    if (Status st = ReadRollups(*q.value(), grouped); !st.ok()) return st;
    return nlohmann::json();
  });
  if (!read.ok()) {
    grouped->clear();
    p->read_through_id = 0;
  }
}

bool Rollups::ReadHoursOfMinutes(const StepPlan& p, std::vector<Rollup>* hours) {
  // When this read fails, the minutes are summed under the lock (WriteHours).
  bool read = false;
  auto q = rollup_reader_->Prepare(HOURS_OF_MINUTES("?1", "?2"));
  if (q.ok()) {
    q.value().Bind(1, p.hourly_from).Bind(2, p.hourly_to);
    read = ReadRollups(q.value(), hours).ok();
  }
  if (!read) hours->clear();
  return read;
}

void Rollups::EndHourlyRead() {
  (void)rollup_reader_->Exec("ROLLBACK");
  std::lock_guard<std::mutex> lock(mu_);
  hourly_reading_to_ = hourly_reading_from_ = 0;
  hourly_owed_.clear();
}

Status Rollups::WriteSliceMinutes(const StepPlan& p, const std::vector<Rollup>& grouped) {
  ASSIGN_STMT(up, Q("INSERT INTO probe_minute(src, dst, transport, minute, " ROLLUP_MEASURES ") "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
                    "ON CONFLICT(src, dst, transport, minute)" ROLLUP_MERGE("probe_minute")));
  RETURN_IF_ERROR(WriteRollups(up, grouped));
  // What was stored in the slice after the read: below the old mark it
  // was not added as late, so it is added here.
  ASSIGN_STMT(rest, Q("INSERT INTO probe_minute(src, dst, transport, minute, " ROLLUP_MEASURES ") "
                      "SELECT src, dst, transport, interval_end / 60000 * 60000, " SLICE_MEASURES
                      " FROM probe_summaries WHERE interval_end >= ?1 AND interval_end < ?2 AND id > ?3 "
                      "GROUP BY 1, 2, 3, 4 ON CONFLICT(src, dst, transport, minute)" ROLLUP_MERGE("probe_minute")));
  rest.Bind(1, p.start).Bind(2, p.new_mark).Bind(3, p.read_through_id);
  return rest.Run();
}

Status Rollups::WriteHours(const StepPlan& p, bool hours_read, const std::vector<Rollup>& hours) {
  if (hours_read) {
    ASSIGN_STMT(up, Q("INSERT INTO probe_hourly(src, dst, transport, hour, " ROLLUP_MEASURES ") "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
                      "ON CONFLICT(src, dst, transport, hour)" ROLLUP_MERGE("probe_hourly")));
    RETURN_IF_ERROR(WriteRollups(up, hours));
    for (const LateSummary& o : hourly_owed_) RETURN_IF_ERROR(AddOneLateSummary(kHourlyUpsertOne, o));
    return Status::Ok();
  }
  ASSIGN_STMT(hour, Q("INSERT INTO probe_hourly(src, dst, transport, hour, " ROLLUP_MEASURES ") " HOURS_OF_MINUTES(
      "?1", "?2") " ON CONFLICT(src, dst, transport, hour)" ROLLUP_MERGE("probe_hourly")));
  hour.Bind(1, p.hourly_from).Bind(2, p.hourly_to);
  return hour.Run();
}

Status Rollups::SaveMarks(int64_t minute_mark, int64_t hourly_mark) {
  ASSIGN_STMT(save, Q("INSERT INTO rollup_marks(name, through_ms) VALUES ('probe_minute', ?1), ('probe_hourly', ?2), "
                      "('probe_hourly_at', ?1) ON CONFLICT(name) DO UPDATE SET through_ms = excluded.through_ms"));
  save.Bind(1, minute_mark).Bind(2, hourly_mark);
  return save.Run();
}

bool Rollups::PinRollupReader() {
  // SQLite's file only (a PostgreSQL writer sums the hours under its lock).
  if (!w_.sqlite() || options_.path == ":memory:") return false;
  if (!rollup_reader_) {
    auto db = Db::OpenReadOnly(options_.path);
    if (!db.ok()) return false;
    sqlite3_busy_timeout(db.value().raw(), options_.busy_timeout_ms);
    rollup_reader_ = std::make_unique<Db>(std::move(db).value());
  }
  // A read transaction sees the database as of its first read.
  if (!rollup_reader_->Exec("BEGIN").ok()) return false;
  if (rollup_reader_->Exec("SELECT 1 FROM rollup_marks LIMIT 1").ok()) return true;
  (void)rollup_reader_->Exec("ROLLBACK");
  return false;
}

Status Rollups::AddOneLateSummary(const char* upsert, const LateSummary& o) {
  ASSIGN_STMT(up, Q(upsert));
  up.Bind(1, o.src).Bind(2, o.dst).Bind(3, o.transport).Bind(4, o.period).Bind(5, o.sent).Bind(6, o.received);
  up.Bind(7, o.lost).Bind(8, o.error_count).Bind(9, o.rtt_p50.value_or(0.0));
  up.Bind(10, static_cast<int64_t>(o.rtt_p50 ? 1 : 0)).Bind(11, o.rtt_p99).Bind(12, o.rtt_max);
  return up.Run();
}

void Rollups::OweCommittedLateSummaries() {
  hourly_owed_.insert(hourly_owed_.end(), std::make_move_iterator(pending_owed_.begin()),
                      std::make_move_iterator(pending_owed_.end()));
  pending_owed_.clear();
}

void Rollups::SetRollupReadHook(std::function<void()> hook) { rollup_read_hook_ = std::move(hook); }

Status Rollups::AddLateSummaryToRollups(const std::string& src, const ProbeInput& s) {
  const int64_t end = s.interval_end;
  const int64_t minute = FloorTo(end, kMinuteMs);
  LateSummary o{src, s.target, s.transport, minute, s.sent, s.received, s.lost, s.error_count,
                s.rtt_p50, s.rtt_p99, s.rtt_max};
  RETURN_IF_ERROR(AddOneLateSummary(kMinuteUpsertOne, o));
  o.period = FloorTo(end, kHourMs);
  // A minute not yet merged reaches its hour with the step that merges it;
  // one being read for that step now is owed to it once this commits (not
  // added here: should that step fail, the next one reads this summary from
  // probe_minute).
  if (minute < hourly_through_ms_) return AddOneLateSummary(kHourlyUpsertOne, o);
  if (minute >= hourly_reading_from_ && minute < hourly_reading_to_) pending_owed_.push_back(std::move(o));
  return Status::Ok();
}

void Rollups::BeginTransaction() { pending_owed_.clear(); }

Status Rollups::JoinWriterTransaction() {
  if (w_.sqlite()) return Status::Ok();
  RETURN_IF_ERROR(db_.Exec(kPgRollupSharedXactLockSql));
  return LoadRollupMark();
}

size_t Rollups::PendingOwed() const { return pending_owed_.size(); }

void Rollups::RollBackOwed(size_t to) { pending_owed_.resize(to); }

}  // namespace rdmascope::collector
