// Event bookkeeping inside an ingest transaction.
//
// Contract: at most one open event per key (a partial unique index enforces
// it). Opening an already open event adds to its count and moves last_seen_at
// forward. An event is closed only by evidence newer than its last sighting,
// so a replayed old report cannot close a current fault.
#include "collector/store/report_writer.h"

#include <map>

#include "collector/store/saturating_sql.h"
#include "collector/store/store_status_macros.h"

namespace rdmascope::collector {

Status ReportWriter::OpenOrTouchEvent(const std::string& kind, const std::string& key, const std::string& node,
                               const std::optional<std::string>& peer, const std::optional<std::string>& transport,
                               const std::optional<std::string>& device, std::optional<int64_t> port,
                               const std::string& status, const std::string& detail, int64_t count, int64_t at) {
  auto q = Q("INSERT INTO events(kind, key, node, peer, transport, device, port, status, detail, count, started_at, "
             "last_seen_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11) "
             "ON CONFLICT(key) WHERE ended_at IS NULL DO UPDATE SET " SAT_MERGE("events", "count") ", "
             "status = excluded.status, "
             "detail = CASE WHEN excluded.last_seen_at >= events.last_seen_at THEN excluded.detail ELSE events.detail END, "
             "started_at = LEAST(events.started_at, excluded.started_at), "
             "last_seen_at = GREATEST(events.last_seen_at, excluded.last_seen_at)");
  if (!q.ok()) return q.status();
  SqlStmt& s = *q.value();
  s.Bind(1, kind).Bind(2, key).Bind(3, node).Bind(4, peer).Bind(5, transport).Bind(6, device).Bind(7, port);
  // The count is capped (saturating_sql.h): a sum past int64 would fail
  // every later report of the node on PostgreSQL.
  s.Bind(8, status).Bind(9, detail).Bind(10, Capped(count)).Bind(11, at);
  if (Status st = s.Run(); !st.ok()) return st;
  open_events_.Add(key, kind, node, peer, transport);
  return Status::Ok();
}

Status ReportWriter::CloseEventByKey(const std::string& key, int64_t at) {
  if (!open_events_.MayBeOpen(key)) return Status::Ok();
  auto q = Q("UPDATE events SET ended_at = ?2 WHERE key = ?1 AND ended_at IS NULL AND last_seen_at < ?2");
  if (!q.ok()) return q.status();
  q.value()->Bind(1, key).Bind(2, at);
  if (Status st = q.value()->Run(); !st.ok()) return st;
  closed_events_ = closed_events_ || db_.Changes() > 0;
  return Status::Ok();
}

Status ReportWriter::CloseWcEvents(const std::string& src, const std::string& dst, const std::string& transport,
                            int64_t at) {
  if (!open_events_.MayHaveWcError(src, dst, transport)) return Status::Ok();
  auto q = Q("UPDATE events SET ended_at = ?4 WHERE kind = 'wc_error' AND node = ?1 AND peer = ?2 AND transport = ?3 "
             "AND ended_at IS NULL AND last_seen_at < ?4");
  if (!q.ok()) return q.status();
  q.value()->Bind(1, src).Bind(2, dst).Bind(3, transport).Bind(4, at);
  if (Status st = q.value()->Run(); !st.ok()) return st;
  closed_events_ = closed_events_ || db_.Changes() > 0;
  return Status::Ok();
}

Status ReportWriter::IngestResponderEvents(const nlohmann::json& r, int64_t received_at) {
  auto events = r.find("responder_events");
  if (events == r.end() || !events->is_array() || events->empty()) return Status::Ok();
  const std::string node = r["node"].get<std::string>();
  std::map<std::string, std::pair<bool, int64_t>> last;  // key -> (recovered, at) of its last event
  for (const nlohmann::json& e : *events) {
    const std::string device = e["device"].get<std::string>();
    const int64_t port = e["port"].get<int64_t>();
    const int64_t at = e["at_ms"].get<int64_t>();
    const std::string key = "responder_qp_error|" + node + "|" + device + "|" + std::to_string(port);
    RETURN_IF_ERROR(OpenOrTouchEvent("responder_qp_error", key, node, std::nullopt, std::string("ud"), device, port,
                                     e["status"].get<std::string>(), e.value("detail", std::string()), 1, at));
    last[key] = {e.value("recovered", false), at};
  }
  for (const auto& [key, state] : last)
    if (state.first) RETURN_IF_ERROR(CloseEventByKey(key, std::max(received_at, state.second + 1)));
  return Status::Ok();
}

namespace {

// What the agent said about why the reports were lost, for the event's detail.
std::string LossReasonText(const std::string& reason) {
  if (reason == "spool_cap") return "its spool was over --spool-max-bytes, so the oldest reports were deleted";
  if (reason == "disk_full") return "its file system was full, so the oldest spooled reports were deleted";
  if (reason == "too_large") return "a report was larger than the whole spool cap (--spool-max-bytes)";
  if (reason == "write_error") return "reports could not be written to its spool";
  if (reason == "several") return "of several causes (spool cap, full disk, write errors)";
  return "reason " + reason;
}

}  // namespace

Status ReportWriter::IngestReportLosses(const nlohmann::json& r, int64_t received_at) {
  auto losses = r.find("report_losses");
  if (losses == r.end() || !losses->is_array() || losses->empty()) return Status::Ok();
  const std::string node = r["node"].get<std::string>();
  for (const nlohmann::json& e : *losses) {
    const std::string key = "reports_lost|" + node + "|" + std::to_string(e["id"].get<uint64_t>());
    const std::string reason = e["reason"].get<std::string>();
    const int64_t count = static_cast<int64_t>(e["count"].get<uint64_t>());
    const int64_t last = std::min(static_cast<int64_t>(e["last_ms"].get<uint64_t>()), received_at);
    const int64_t first = std::min(static_cast<int64_t>(e["first_ms"].get<uint64_t>()), last);
    const bool ended = e["ended"].get<bool>();
    const std::string detail = "the agent lost " + std::to_string(count) + " report(s) made in this window: " +
                               LossReasonText(reason) + "; the node's history has a gap here";
    // ?1 key, ?2 node, ?3 reason, ?4 detail, ?5 count, ?6 first, ?7 last, ?8 ended.
    auto up = Q("UPDATE events SET count = GREATEST(count, ?5), status = CASE WHEN ?5 >= count THEN ?3 ELSE status END, "
                "detail = CASE WHEN ?5 >= count THEN ?4 ELSE detail END, started_at = LEAST(started_at, ?6), "
                "last_seen_at = GREATEST(last_seen_at, ?7), "
                "ended_at = CASE WHEN ?8 = 1 THEN GREATEST(COALESCE(ended_at, ?7), ?7) ELSE ended_at END "
                "WHERE node = ?2 AND kind = 'reports_lost' AND key = ?1");
    if (!up.ok()) return up.status();
    up.value()->Bind(1, key).Bind(2, node).Bind(3, reason).Bind(4, detail).Bind(5, count).Bind(6, first);
    up.value()->Bind(7, last).Bind(8, static_cast<int64_t>(ended ? 1 : 0));
    if (Status st = up.value()->Run(); !st.ok()) return Status::Error("recording report losses " + key + ": " + st.message());
    if (db_.Changes() > 0) {
      closed_events_ = closed_events_ || ended;
      continue;
    }
    auto in = Q("INSERT INTO events(kind, key, node, status, detail, count, started_at, last_seen_at, ended_at) "
                "VALUES ('reports_lost', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!in.ok()) return in.status();
    in.value()->Bind(1, key).Bind(2, node).Bind(3, reason).Bind(4, detail).Bind(5, count).Bind(6, first);
    in.value()->Bind(7, last).Bind(8, ended ? std::optional<int64_t>(last) : std::nullopt);
    if (Status st = in.value()->Run(); !st.ok()) return Status::Error("recording report losses " + key + ": " + st.message());
    if (!ended) open_events_.Add(key, "reports_lost", node, std::nullopt, std::nullopt);
  }
  return Status::Ok();
}

void ReportWriter::LoadOpenEventKeys() {
  open_events_.Invalidate();
  auto q = Q("SELECT key, kind, node, COALESCE(peer, ''), COALESCE(transport, '') FROM events WHERE ended_at IS NULL");
  if (!q.ok()) return;
  std::unordered_set<std::string> keys, wc_paths;
  for (;;) {
    auto more = q.value()->Step();
    if (!more.ok()) return;
    if (!more.value()) break;
    const SqlStmt& s = *q.value();
    keys.insert(s.Text(0));
    if (s.Text(1) == "wc_error") wc_paths.insert(OpenEventKeys::WcPath(s.Text(2), s.Text(3), s.Text(4)));
  }
  open_events_.Replace(std::move(keys), std::move(wc_paths));
}

}  // namespace rdmascope::collector
