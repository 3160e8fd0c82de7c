// Store side of the diagnosis: the facts it reads and the diagnoses it keeps.
#include "collector/core/verdict.h"
#include "collector/store/diagnosis_records.h"
#include "collector/store/store_rows.h"

namespace rdmascope::collector {

using nlohmann::json;

// The writer keeps each counter's newest delta by the counter rules, and
// whether it counts errors (0011_counter_deltas.sql,
// 0013_counter_error_rises.sql): the error counters that rose come from the
// partial index counters_latest_error_rose alone, not from the history nor
// from the traffic counters that rise everywhere. "+node" keeps the planner
// from walking the whole table in key order to save the sort of the few rows.
const char kDiagnosisMovedSql[] =
    "SELECT node, device, port, kind, name, delta FROM counters_latest "
    "WHERE delta > 0 AND error = 1 AND sampled_at >= ?1 AND delta_from >= ?2 "
    "ORDER BY +node, device, port, kind, name";

Result<json> DiagnosisRecords::DiagnosisFacts(int64_t since_ms, int64_t counters_from_ms) {
  struct Part {
    const char* name;
    const char* sql;  // ?1: since_ms; ?2 (when counters_from): counters_from_ms
    bool counters_from = false;
  };
  static const Part kParts[] = {
      {"ports", "SELECT node, device, port, state, COALESCE(state_name, '') AS state_name FROM ports "
                "WHERE ?1 = ?1 ORDER BY node, device, port"},
      {"moved", kDiagnosisMovedSql, true},
      // The ports sampled in the window from the index on at (the planner
      // would walk the whole history in key order for the DISTINCT).
      {"fabric_moved", "SELECT s.guid, s.port, s.at, s.counters AS counters_json FROM "
                       "(SELECT DISTINCT guid, port FROM fabric_port_samples INDEXED BY fabric_port_samples_at "
                       "WHERE at >= ?1) k "
                       "JOIN fabric_port_samples s ON s.guid = k.guid AND s.port = k.port AND s.at IN "
                       "(SELECT at FROM fabric_port_samples WHERE guid = k.guid AND port = k.port ORDER BY at DESC LIMIT 2) "
                       "ORDER BY s.guid, s.port, s.at DESC"},
      {"neighbours", "SELECT node, device, port, switch_guid FROM node_neighbours WHERE ?1 = ?1 "
                     "ORDER BY node, device, port"},
      // The two newest samples of each switch port: those at or after its
      // second newest (one range of the key (guid, port, at), not a list
      // built per neighbour).
      {"switch", "SELECT nn.node, nn.device, nn.port, nn.switch_guid, nn.switch_port, nn.switch_description, "
                 "s.at, s.counters AS counters_json FROM node_neighbours nn JOIN fabric_port_samples s "
                 "ON s.guid = nn.switch_guid AND s.port = nn.switch_port AND s.at >= COALESCE((SELECT at FROM "
                 "fabric_port_samples WHERE guid = nn.switch_guid AND port = nn.switch_port "
                 "ORDER BY at DESC LIMIT 1 OFFSET 1), -9223372036854775808) "
                 "WHERE ?1 = ?1 ORDER BY nn.node, nn.device, nn.port, s.at DESC"},
  };
  return History([&](Db& db) -> Result<json> {
    json out = json::object();
    for (const Part& p : kParts) {
      auto q = db.Prepare(p.sql);
      if (!q.ok()) return q.status();
      q.value().Bind(1, since_ms);
      if (p.counters_from) q.value().Bind(2, counters_from_ms);
      auto rows = Rows(q.value());
      if (!rows.ok()) return rows;
      out[p.name] = std::move(rows).value();
    }
    return out;
  });
}

Result<std::set<std::string>> DiagnosisRecords::OpenDiagnosisKeys() {
  auto rows = History([](Db& db) -> Result<json> {
    auto q = db.Prepare("SELECT key FROM diagnoses WHERE closed_at IS NULL");
    if (!q.ok()) return q.status();
    return Rows(q.value());
  });
  if (!rows.ok()) return rows.status();
  std::set<std::string> keys;
  for (const json& r : rows.value())
    if (r["key"].is_string()) keys.insert(r["key"].get<std::string>());
  return keys;
}

Status DiagnosisRecords::ApplyDiagnoses(const std::vector<diagnosis::Verdict>& upsert, const std::vector<std::string>& close,
                             int64_t now_ms, int64_t reopen_within_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(db_);
  if (Status st = tx.Begin(); !st.ok()) return st;
  for (const diagnosis::Verdict& v : upsert) {
    if (reopen_within_ms > 0) {
      // Closed at or after now - reopen_within_ms and none open: the same
      // fault back. Its row is reopened with one more flap (or the
      // tracker's count, when larger); opened_at and since_at stay.
      auto q = Q("UPDATE diagnoses SET closed_at = NULL, flaps = MAX(flaps + 1, ?7), severity = ?2, confidence = ?3, "
                 "evidence = ?4, paths = ?5, last_seen_at = ?6, runs = runs + 1 "
                 "WHERE id = (SELECT id FROM diagnoses WHERE key = ?1 AND closed_at IS NOT NULL AND closed_at >= ?8 "
                 "ORDER BY closed_at DESC, id DESC LIMIT 1) "
                 "AND NOT EXISTS (SELECT 1 FROM diagnoses WHERE key = ?1 AND closed_at IS NULL)");
      if (!q.ok()) return q.status();
      Stmt& s = *q.value();
      s.Bind(1, v.Key()).Bind(2, v.severity).Bind(3, v.confidence).Bind(4, v.evidence.dump()).Bind(5, v.paths.dump());
      s.Bind(6, now_ms).Bind(7, static_cast<int64_t>(v.flaps)).Bind(8, now_ms - reopen_within_ms);
      if (Status st = s.Run(); !st.ok()) return st;
      if (db_.Changes() > 0) continue;
    }
    auto q = Q("INSERT INTO diagnoses(key, scope, subject, kind, severity, confidence, evidence, paths, since_at, "
               "opened_at, last_seen_at, flaps) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11) "
               "ON CONFLICT(key) WHERE closed_at IS NULL DO UPDATE SET severity = excluded.severity, "
               "confidence = excluded.confidence, evidence = excluded.evidence, paths = excluded.paths, "
               "last_seen_at = excluded.last_seen_at, runs = runs + 1, flaps = MAX(flaps, excluded.flaps)");
    if (!q.ok()) return q.status();
    Stmt& s = *q.value();
    s.Bind(1, v.Key()).Bind(2, v.scope).Bind(3, v.subject).Bind(4, v.kind).Bind(5, v.severity);
    s.Bind(6, v.confidence).Bind(7, v.evidence.dump()).Bind(8, v.paths.dump());
    s.Bind(9, v.first_bad_ms > 0 ? v.first_bad_ms : now_ms).Bind(10, now_ms).Bind(11, static_cast<int64_t>(v.flaps));
    if (Status st = s.Run(); !st.ok()) return st;
  }
  for (const std::string& key : close) {
    auto q = Q("UPDATE diagnoses SET closed_at = ?2 WHERE key = ?1 AND closed_at IS NULL");
    if (!q.ok()) return q.status();
    q.value()->Bind(1, key).Bind(2, now_ms);
    if (Status st = q.value()->Run(); !st.ok()) return st;
  }
  if (Status st = tx.Commit(); !st.ok()) return st;
  // /metrics counts open diagnoses from the read snapshot, without this
  // mutex; when that reload fails, the next commit reloads the whole snapshot.
  if (!loader_.LoadDiagnosesOpen().ok()) loader_.MarkDirty();
  return Status::Ok();
}

Result<json> DiagnosisRecords::Diagnoses(bool include_closed, int limit) {
  return History([&](Db& db) -> Result<json> {
  auto q = db.Prepare("SELECT id, scope, subject, kind, severity, confidence, evidence AS evidence_json, paths AS paths_json, "
             "since_at AS since_ms, opened_at AS opened_at_ms, last_seen_at AS last_seen_at_ms, "
             "closed_at AS closed_at_ms, runs, flaps FROM diagnoses WHERE ?1 = 1 OR closed_at IS NULL "
             "ORDER BY (closed_at IS NULL) DESC, severity = 'critical' DESC, opened_at DESC, id DESC LIMIT ?2");
  if (!q.ok()) return q.status();
  q.value().Bind(1, static_cast<int64_t>(include_closed ? 1 : 0)).Bind(2, static_cast<int64_t>(limit));
  auto rows = Rows(q.value());
  if (!rows.ok()) return rows;
  json list = std::move(rows).value();
  for (json& d : list) d["open"] = d["closed_at_ms"].is_null();
  return json{{"diagnoses", std::move(list)}};
  });
}

}  // namespace rdmascope::collector
