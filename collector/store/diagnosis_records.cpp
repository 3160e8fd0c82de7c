// Store side of the diagnosis: the facts it reads and the diagnoses it keeps.
#include <string>
#include <vector>

#include "collector/core/verdict.h"
#include "collector/store/diagnosis_records.h"
#include "collector/store/store_rows.h"

namespace rdmascope::collector {

using nlohmann::json;

// The writer keeps each counter's newest delta by the counter rules, and
// whether it counts errors (0011_counter_deltas.sql,
// 0013_counter_error_rises.sql): the error counters that rose come from the
// partial index counters_latest_error_rose alone, not from the history nor
// from the traffic counters that rise everywhere. Ordering by an expression
// of node keeps the planner from walking the whole table in key order to
// save the sort of the few rows.
const char kDiagnosisMovedSql[] =
    "SELECT node, device, port, kind, name, delta FROM counters_latest "
    "WHERE delta > 0 AND error = 1 AND sampled_at >= ?1 AND delta_from >= ?2 "
    "ORDER BY node || '', device, port, kind, name";

// Each node port's neighbour row, with the rises of its switch port's newest
// sample when that is in the window: one key lookup per row.
const char kDiagnosisNeighboursSql[] =
    "SELECT nn.node, nn.device, nn.port, nn.switch_guid, nn.switch_port, nn.switch_description, r.rises "
    "FROM node_neighbours nn LEFT JOIN fabric_port_rises r "
    "ON r.guid = nn.switch_guid AND r.port = nn.switch_port AND r.at >= ?1 "
    "ORDER BY nn.node, nn.device, nn.port";
// The fabric ports whose newest sample in the window rose: from the index on
// at (the planner would walk the whole table in key order to save the sort
// of the few rows).
const char kDiagnosisFabricRisesSql[] =
    "SELECT guid, port, at, rises FROM fabric_port_rises INDEXED BY fabric_port_rises_at WHERE at >= ?1 "
    "ORDER BY guid, port";

namespace {

// fabric_port_rises.rises ({"name": delta}, written by the writer) by name.
std::vector<DiagnosisFactRows::Rise> RisesOf(const std::string& text) {
  std::vector<DiagnosisFactRows::Rise> out;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items())
    if (v.is_number_integer() && v.get<int64_t>() > 0) out.push_back({k, v.get<int64_t>()});
  return out;
}

// Steps q to its end, calling row() for each row.
template <typename F>
Status EachRow(SqlStmt& q, const char* part, F row) {
  for (;;) {
    auto more = q.Step();
    if (!more.ok()) return Status::Error("reading the diagnosis's " + std::string(part) + ": " + more.status().message());
    if (!more.value()) return Status::Ok();
    row();
  }
}

}  // namespace

Result<DiagnosisFactRows> DiagnosisRecords::DiagnosisFacts(int64_t since_ms, int64_t counters_from_ms) {
  DiagnosisFactRows out;
  if (Status s = DiagnosisFacts(since_ms, counters_from_ms, &out); !s.ok()) return s;
  return out;
}

Status DiagnosisRecords::DiagnosisFacts(int64_t since_ms, int64_t counters_from_ms, DiagnosisFactRows* into) {
  DiagnosisFactRows& out = *into;
  out.ports.clear(), out.moved.clear(), out.neighbours.clear(), out.fabric_rises.clear();
  auto read = w_.HistoryRun<bool>([&](SqlConn& db) -> Result<bool> {
    auto ports = db.Q("SELECT node, device, port, state, state_name FROM ports ORDER BY node, device, port");
    if (!ports.ok()) return ports.status();
    SqlStmt& p = *ports.value();
    Status st = EachRow(p, "ports", [&] {
      out.ports.push_back({p.Text(0), p.Text(1), p.Int(2), p.OptInt(3), p.Text(4)});
    });
    if (!st.ok()) return st;

    auto moved = db.Q(kDiagnosisMovedSql);
    if (!moved.ok()) return moved.status();
    SqlStmt& m = *moved.value();
    m.Bind(1, since_ms).Bind(2, counters_from_ms);
    st = EachRow(m, "moved counters", [&] {
      out.moved.push_back({m.Text(0), m.Text(1), m.Int(2), m.Text(3), m.Text(4), m.Int(5)});
    });
    if (!st.ok()) return st;

    auto neighbours = db.Q(kDiagnosisNeighboursSql);
    if (!neighbours.ok()) return neighbours.status();
    SqlStmt& n = *neighbours.value();
    n.Bind(1, since_ms);
    st = EachRow(n, "neighbours", [&] {
      DiagnosisFactRows::Neighbour& r = out.neighbours.emplace_back();
      r.node = n.Text(0), r.device = n.Text(1), r.port = n.Int(2);
      r.switch_guid = n.Text(3), r.switch_port = n.Int(4), r.switch_description = n.Text(5);
      if (!n.IsNull(6)) r.switch_rises = RisesOf(n.Text(6));
    });
    if (!st.ok()) return st;

    auto fabric = db.Q(kDiagnosisFabricRisesSql);
    if (!fabric.ok()) return fabric.status();
    SqlStmt& f = *fabric.value();
    f.Bind(1, since_ms);
    st = EachRow(f, "fabric port rises", [&] {
      out.fabric_rises.push_back({f.Text(0), f.Int(1), f.Int(2), RisesOf(f.Text(3))});
    });
    if (!st.ok()) return st;
    return true;
  });
  return read.ok() ? Status::Ok() : read.status();
}

// ?1 key, ?2 kind, ?3 severity, ?4 confidence, ?5 evidence, ?6 paths, ?7
// now, ?8 flaps, ?9 and ?10 the element's key range, ?11 scope, ?12 subject.
// The range of the key index, named: the planner would otherwise walk every
// open row through diagnoses_closed.
// Of two open on one element (rows from before one per element held
// whatever the kind) the one of this key.
const char kDiagnosisRefreshSql[] =
    "UPDATE diagnoses SET key = ?1, kind = ?2, severity = ?3, confidence = ?4, evidence = ?5, paths = ?6, "
    "last_seen_at = ?7, runs = runs + 1, flaps = GREATEST(flaps, ?8) "
    "WHERE id = (SELECT id FROM diagnoses INDEXED BY diagnoses_one_open WHERE key >= ?9 AND key < ?10 "
    "AND closed_at IS NULL "
    "AND scope = ?11 AND subject = ?12 ORDER BY key = ?1 DESC, id DESC LIMIT 1)";
// The same, and ?13 the oldest close that reopens.
const char kDiagnosisReopenSql[] =
    "UPDATE diagnoses SET closed_at = NULL, key = ?1, kind = ?2, severity = ?3, confidence = ?4, "
    "evidence = ?5, paths = ?6, last_seen_at = ?7, runs = runs + 1, flaps = GREATEST(flaps + 1, ?8) "
    "WHERE id = (SELECT id FROM diagnoses INDEXED BY diagnoses_key_closed WHERE key >= ?9 AND key < ?10 "
    "AND closed_at IS NOT NULL "
    "AND closed_at >= ?13 AND scope = ?11 AND subject = ?12 ORDER BY closed_at DESC, id DESC LIMIT 1)";

Result<diagnosis::OpenDiagnoses> DiagnosisRecords::OpenDiagnosisKeys() {
  auto rows = History([](SqlConn& db) -> Result<json> {
    auto q = db.Q("SELECT key, severity, evidence AS evidence_json FROM diagnoses WHERE closed_at IS NULL");
    if (!q.ok()) return q.status();
    return Rows(*q.value());
  });
  if (!rows.ok()) return rows.status();
  diagnosis::OpenDiagnoses open;
  for (json& r : rows.value()) {
    if (!r["key"].is_string()) continue;
    diagnosis::OpenDiagnosis& d = open[r["key"].get<std::string>()];
    if (r["severity"].is_string()) d.severity = r["severity"].get<std::string>();
    if (r["evidence"].is_array()) d.evidence = std::move(r["evidence"]);
  }
  return open;
}

namespace {

// The keys of one element's diagnoses ("scope|subject|kind") lie in
// [scope|subject|, scope|subject|\x7f): kinds are ASCII words. The range
// lets the lookups use the key indexes; scope and subject are compared too.
std::string ElementKeyFrom(const diagnosis::Verdict& v) { return v.Element() + "|"; }
std::string ElementKeyTo(const diagnosis::Verdict& v) { return v.Element() + "|\x7f"; }

}  // namespace

Status DiagnosisRecords::ApplyDiagnoses(const std::vector<diagnosis::Verdict>& upsert, const std::vector<std::string>& close,
                             int64_t now_ms, int64_t reopen_within_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  if (Status st = tx.Begin(); !st.ok()) return st;
  // Closed first: a duplicate closed in this step is not the row an upsert
  // of its element updates.
  for (const std::string& key : close) {
    auto q = Q("UPDATE diagnoses SET closed_at = ?2 WHERE key = ?1 AND closed_at IS NULL");
    if (!q.ok()) return q.status();
    q.value()->Bind(1, key).Bind(2, now_ms);
    if (Status st = q.value()->Run(); !st.ok()) return Status::Error("closing diagnosis " + key + ": " + st.message());
  }
  for (const diagnosis::Verdict& v : upsert) {
    auto bind_row = [&](SqlStmt& s) {
      s.Bind(1, v.Key()).Bind(2, v.kind).Bind(3, v.severity).Bind(4, v.confidence).Bind(5, v.evidence.dump());
      s.Bind(6, v.paths.dump()).Bind(7, now_ms).Bind(8, static_cast<int64_t>(v.flaps));
      s.Bind(9, ElementKeyFrom(v)).Bind(10, ElementKeyTo(v)).Bind(11, v.scope).Bind(12, v.subject);
    };
    // The element's open diagnosis, whatever its kind: refreshed, or
    // escalated in place (the same row takes the verdict's kind and key).
    auto q = Q(kDiagnosisRefreshSql);
    if (!q.ok()) return q.status();
    bind_row(*q.value());
    if (Status st = q.value()->Run(); !st.ok())
      return Status::Error("refreshing diagnosis " + v.Key() + ": " + st.message());
    if (db_.Changes() > 0) continue;
    if (reopen_within_ms > 0) {
      // None open, and one of the element closed at or after now -
      // reopen_within_ms: the same fault back. Its row (the newest) is
      // reopened with one more flap (or the tracker's count, when larger)
      // and the verdict's kind; opened_at and since_at stay.
      q = Q(kDiagnosisReopenSql);
      if (!q.ok()) return q.status();
      bind_row(*q.value());
      q.value()->Bind(13, now_ms - reopen_within_ms);
      if (Status st = q.value()->Run(); !st.ok())
        return Status::Error("reopening diagnosis " + v.Key() + ": " + st.message());
      if (db_.Changes() > 0) continue;
    }
    q = Q("INSERT INTO diagnoses(key, scope, subject, kind, severity, confidence, evidence, paths, since_at, "
          "opened_at, last_seen_at, flaps) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11)");
    if (!q.ok()) return q.status();
    SqlStmt& s = *q.value();
    s.Bind(1, v.Key()).Bind(2, v.scope).Bind(3, v.subject).Bind(4, v.kind).Bind(5, v.severity);
    s.Bind(6, v.confidence).Bind(7, v.evidence.dump()).Bind(8, v.paths.dump());
    s.Bind(9, v.first_bad_ms > 0 ? v.first_bad_ms : now_ms).Bind(10, now_ms).Bind(11, static_cast<int64_t>(v.flaps));
    if (Status st = s.Run(); !st.ok()) return Status::Error("opening diagnosis " + v.Key() + ": " + st.message());
  }
  if (Status st = tx.Commit(); !st.ok()) return st;
  // /metrics counts open diagnoses from the read snapshot, without this
  // mutex; when that reload fails, the next commit reloads the whole snapshot.
  if (!loader_.LoadDiagnosesOpen().ok()) loader_.MarkDirty();
  return Status::Ok();
}

Result<json> DiagnosisRecords::Diagnoses(bool include_closed, int limit) {
  return History([&](SqlConn& db) -> Result<json> {
  auto q = db.Q("SELECT id, scope, subject, kind, severity, confidence, evidence AS evidence_json, paths AS paths_json, "
             "since_at AS since_ms, opened_at AS opened_at_ms, last_seen_at AS last_seen_at_ms, "
             "closed_at AS closed_at_ms, runs, flaps FROM diagnoses WHERE ?1 = 1 OR closed_at IS NULL "
             "ORDER BY (closed_at IS NULL) DESC, severity = 'critical' DESC, opened_at DESC, id DESC LIMIT ?2");
  if (!q.ok()) return q.status();
  q.value()->Bind(1, static_cast<int64_t>(include_closed ? 1 : 0)).Bind(2, static_cast<int64_t>(limit));
  auto rows = Rows(*q.value());
  if (!rows.ok()) return rows;
  json list = std::move(rows).value();
  for (json& d : list) d["open"] = d["closed_at_ms"].is_null();
  return json{{"diagnoses", std::move(list)}};
  });
}

}  // namespace rdmascope::collector
