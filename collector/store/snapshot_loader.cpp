// Store: upkeep of the read snapshot (read_snapshot.h). Runs on the writer's
// side, under mu_: the probe rows a commit wrote come from memory, the state
// of the nodes it touched from keyed lookups; never a scan of the history.
#include <algorithm>
#include <cstdio>
#include <functional>

#include "collector/store/probe_row_sql.h"
#include "collector/store/snapshot_loader.h"
#include "collector/store/store_rows.h"

namespace rdmascope::collector {

using nlohmann::json;

namespace {
// At open, pairs whose newest summary ended more than this before the newest
// summary stored are not loaded (they come back with their next report).
constexpr int64_t kLoadLookbackMs = 3600LL * 1000;

// Steps s (selecting kProbeRowColumns first) to its end, handing each row to
// apply; the rows of one report share its id string. Resets s.
Status ForEachProbeRow(SqlStmt& s, const std::function<Status(std::shared_ptr<const ProbeRow>)>& apply) {
  std::shared_ptr<const std::string> id;
  Status out = Status::Ok();
  for (;;) {
    auto r = s.Step();
    if (!r.ok()) {
      out = r.status();
      break;
    }
    if (!r.value()) break;
    auto row = std::make_shared<const ProbeRow>(ProbeRowFromStmt(s, id));
    id = row->report_id;
    if (out = apply(std::move(row)); !out.ok()) break;
  }
  s.Reset();
  return out;
}
}  // namespace

// A node's leaf switch, NODE being the SQL that names the node: its own
// neighbour report, else a sweep's switch port whose remote is one of the
// node's adapters (node GUIDs joined); '' when neither knows.
#define RDMASCOPE_LEAF_SWITCH_OF(NODE)                                                                   \
  "COALESCE((SELECT switch_guid FROM node_neighbours nn WHERE nn.node = " NODE                           \
  " AND nn.switch_type = 'Switch' ORDER BY nn.device, nn.port LIMIT 1), "                                \
  "(SELECT fp.guid FROM ports p JOIN fabric_ports fp ON fp.remote_guid = '0x' || "                      \
  "lower(replace(p.node_guid, ':', '')) JOIN fabric_nodes fn ON fn.guid = fp.guid AND fn.type = 'Switch' " \
  "WHERE p.node = " NODE " ORDER BY p.device, p.port LIMIT 1), '')"

Result<std::string> SnapshotLoader::LeafSwitch(const std::string& name) {
  auto q = Q("SELECT " RDMASCOPE_LEAF_SWITCH_OF("?1"));
  if (!q.ok()) return q.status();
  SqlStmt& s = *q.value();
  s.Bind(1, name);
  auto r = s.Step();
  if (!r.ok()) return r.status();
  std::string leaf = s.Text(0);
  s.Reset();
  return leaf;
}

namespace {
// Nodes whose state one set of statements reads (the list is one parameter).
constexpr size_t kNodesPerLoad = 256;

// `names` as the one parameter a list query binds: a JSON array for
// SQLite's json_each, an array literal for PostgreSQL's unnest (each name
// quoted, so that no name reads as NULL). Whatever a stored name holds, the
// list stays valid: JSON takes a control character as \u00XX.
std::string NameListParam(const std::vector<std::string>& names, bool pg) {
  std::string out = pg ? "{" : "[";
  for (size_t i = 0; i < names.size(); ++i) {
    out += i ? ",\"" : "\"";
    for (char c : names[i]) {
      if (!pg && static_cast<unsigned char>(c) < 0x20) {
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        out += esc;
        continue;
      }
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + (pg ? "}" : "]");
}

// The SQL of one node-state query with `$IN` replaced by the dialect's test
// of a column against the list bound as ?1.
std::string WithNameList(const char* sql, bool pg) {
  std::string out = sql;
  const std::string in = pg ? "= ANY(?1::text[])" : "IN (SELECT value FROM json_each(?1))";
  for (size_t at; (at = out.find("$IN")) != std::string::npos;) out.replace(at, 3, in);
  return out;
}
}  // namespace

Result<std::shared_ptr<NodeState>> SnapshotLoader::LoadNodeState(const std::string& name) {
  auto states = LoadNodeStates({name});
  if (!states.ok()) return states.status();
  auto it = states.value().find(name);
  return it == states.value().end() ? std::shared_ptr<NodeState>() : std::move(it->second);
}

Result<std::map<std::string, std::shared_ptr<NodeState>>> SnapshotLoader::LoadNodeStates(
    const std::vector<std::string>& names) {
  std::map<std::string, std::shared_ptr<NodeState>> out;
  const bool pg = !w_.sqlite();
  // Each node's row and leaf switch.
  static constexpr char kNodesSql[] =
      "SELECT n.name, n.labels, n.interval_s, n.last_generated_at, n.last_report_at, "
      RDMASCOPE_LEAF_SWITCH_OF("n.name") " FROM nodes n WHERE n.name $IN";
  static const std::string kNodes[2] = {WithNameList(kNodesSql, false), WithNameList(kNodesSql, true)};
  // Each port's switch, from the node's neighbour report: its leaf per rail.
  static constexpr char kPortLeavesSql[] =
      "SELECT node, device, port, switch_guid FROM node_neighbours WHERE node $IN AND switch_type = 'Switch'";
  static const std::string kPortLeaves[2] = {WithNameList(kPortLeavesSql, false), WithNameList(kPortLeavesSql, true)};
  // A node's rows of one table, in the order the API shows them. On
  // PostgreSQL each listed node's rows come from their own index scan
  // (LATERAL, in its order): a plan over the whole list (ANY, then one sort)
  // is cheap in a test and, chosen generic under load, scans the table.
  struct Part {
    json NodeState::*member;
    const char* columns;
    const char* table_and_filter;  // "table" or "table WHERE ..." beside the node's
    const char* order;
  };
  static const Part kParts[] = {
      // Every column the API's port list shows (the paged list answers from
      // these rows; /metrics reads its own few of them).
      {&NodeState::ports,
       "node, device, port, state, state_name, phys_state, phys_state_name, lid, sm_lid, link_layer, active_mtu, "
       "rate_gbps, rate_text, gids AS gids_json, fw, node_guid, updated_at AS updated_at_ms",
       "ports", "device, port"},
      {&NodeState::counters, "node, device, port, kind, name, value", "counters_latest WHERE value IS NOT NULL",
       "device, port, kind, name"},
      {&NodeState::wc_totals, "node, status, count", "wc_error_totals", "status"},
  };
  auto part_sql = [](const Part& part, bool on_pg) {
    std::string table = part.table_and_filter, filter;
    if (size_t at = table.find(" WHERE "); at != std::string::npos) {
      filter = " AND " + table.substr(at + 7);
      table.resize(at);
    }
    if (on_pg)
      return "SELECT x.* FROM unnest(?1::text[]) AS l(n) CROSS JOIN LATERAL (SELECT " + std::string(part.columns) +
             " FROM " + table + " WHERE node = l.n" + filter + " ORDER BY " + part.order + ") x";
    return "SELECT " + std::string(part.columns) + " FROM " + table + " WHERE node IN (SELECT value FROM json_each(?1))" +
           filter + " ORDER BY node, " + part.order;
  };
  static const std::vector<std::string> kPartSql[2] = {
      {part_sql(kParts[0], false), part_sql(kParts[1], false), part_sql(kParts[2], false)},
      {part_sql(kParts[0], true), part_sql(kParts[1], true), part_sql(kParts[2], true)}};
  for (size_t from = 0; from < names.size(); from += kNodesPerLoad) {
    const std::vector<std::string> chunk(names.begin() + static_cast<std::ptrdiff_t>(from),
                                         names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), from + kNodesPerLoad)));
    const std::string list = NameListParam(chunk, pg);
    // Runs the statement `sql` on the list, each row to `each`.
    auto each_row = [&](const std::string& sql, const std::function<void(SqlStmt&)>& each) -> Status {
      auto q = Q(sql.c_str());
      if (!q.ok()) return q.status();
      SqlStmt& s = *q.value();
      s.Bind(1, list);
      Status out = Status::Ok();
      for (;;) {
        auto r = s.Step();
        if (!r.ok()) out = r.status();
        if (!r.ok() || !r.value()) break;
        each(s);
      }
      s.Reset();
      return out;
    };
    Status st = each_row(kNodes[pg], [&](SqlStmt& s) {
      auto state = std::make_shared<NodeState>();
      state->name = s.Text(0);
      state->labels = json::parse(s.Text(1), nullptr, /*allow_exceptions=*/false);
      state->interval_s = s.OptReal(2);
      state->last_generated_at = s.Int(3);
      state->last_report_at = s.Int(4);
      state->leaf_switch = s.Text(5);
      out[state->name] = std::move(state);
    });
    if (!st.ok()) return st;
    st = each_row(kPortLeaves[pg], [&](SqlStmt& s) {
      auto it = out.find(s.Text(0));
      if (it != out.end()) it->second->port_leaves[s.Text(1) + "/" + std::to_string(s.Int(2))] = s.Text(3);
    });
    if (!st.ok()) return st;
    for (size_t p = 0; p < std::size(kParts); ++p) {
      auto q = Q(kPartSql[pg][p].c_str());
      if (!q.ok()) return q.status();
      q.value()->Bind(1, list);
      auto rows = Rows(*q.value());
      if (!rows.ok()) return rows.status();
      for (json& row : rows.value()) {
        auto it = out.find(row["node"].get<std::string>());
        if (it != out.end()) ((*it->second).*(kParts[p].member)).push_back(std::move(row));
      }
    }
  }
  return out;
}

Status SnapshotLoader::LoadEventsOpen() {
  auto rows = w_.SelectRows("SELECT kind, COUNT(*) AS n FROM events WHERE ended_at IS NULL GROUP BY kind");
  if (!rows.ok()) return rows.status();
  snapshot_.SetEventsOpen(std::move(rows).value());
  return Status::Ok();
}

Status SnapshotLoader::LoadDiagnosesOpen() {
  auto rows = w_.SelectRows("SELECT scope, kind, COUNT(*) AS n FROM diagnoses WHERE closed_at IS NULL GROUP BY scope, kind");
  if (!rows.ok()) return rows.status();
  snapshot_.SetDiagnosesOpen(std::move(rows).value());
  return Status::Ok();
}

Status SnapshotLoader::LoadFabricParts() {
  struct Part {
    const char* name;
    const char* sql;
  };
  static const Part kParts[] = {
      {"fabric_links", "SELECT (gone_at IS NULL) AS up, COUNT(*) AS n FROM fabric_links GROUP BY up"},
      {"fabric_nodes", "SELECT type, COUNT(*) AS n FROM fabric_nodes GROUP BY type"},
      {"fabric_ports", "SELECT p.guid, p.port, COALESCE(n.description, '') AS description, "
                       "COALESCE(r.description, '') AS peer, p.counters AS counters_json FROM fabric_ports p "
                       "LEFT JOIN fabric_nodes n ON n.guid = p.guid LEFT JOIN fabric_nodes r ON r.guid = p.remote_guid "
                       "WHERE p.counters <> '{}'"},
  };
  json parts = json::object();
  for (const Part& p : kParts) {
    auto q = Q(p.sql);
    if (!q.ok()) return q.status();
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows.status();
    parts[p.name] = std::move(rows).value();
  }
  snapshot_.SetFabric(std::move(parts));
  return Status::Ok();
}


Status SnapshotLoader::LoadSnapshot() {
  std::map<std::string, std::shared_ptr<NodeState>> states;
  {
    auto q = Q("SELECT name FROM nodes");
    if (!q.ok()) return q.status();
    std::vector<std::string> names;
    for (;;) {
      auto r = q.value()->Step();
      if (!r.ok()) return r.status();
      if (!r.value()) break;
      names.push_back(q.value()->Text(0));
    }
    q.value()->Reset();
    auto loaded = LoadNodeStates(names);
    if (!loaded.ok()) return loaded.status();
    states = std::move(loaded).value();
  }
  // The newest summary, and the newest that ran, of each (src, dst, rail,
  // transport): SQLite takes a bare column's values from the row MAX() chose;
  // PostgreSQL says the same with DISTINCT ON.
  static const std::string kRecent =
      " FROM probe_summaries WHERE interval_end >= (SELECT COALESCE(MAX(interval_end), 0) FROM probe_summaries) - ?1 ";
  static const std::string kNewest = std::string("SELECT ") + kProbeRowColumns + ", MAX(interval_end)" + kRecent;
  static const std::string kGroup = " GROUP BY src, dst, rail, transport";
  static const std::string kAny = kNewest + kGroup, kRun = kNewest + "AND not_run IS NULL" + kGroup;
  static const std::string kPgNewest =
      std::string("SELECT DISTINCT ON (src, dst, rail, transport) ") + kProbeRowColumns + kRecent;
  static const std::string kPgOrder = " ORDER BY src, dst, rail, transport, interval_end DESC, id DESC";
  static const std::string kPgAny = kPgNewest + kPgOrder, kPgRun = kPgNewest + "AND not_run IS NULL" + kPgOrder;
  const bool pg = !w_.sqlite();
  for (const std::string* sql : {pg ? &kPgAny : &kAny, pg ? &kPgRun : &kRun}) {
    auto q = Q(sql->c_str());
    if (!q.ok()) return q.status();
    SqlStmt& s = *q.value();
    s.Bind(1, kLoadLookbackMs);
    Status st = ForEachProbeRow(s, [&states](std::shared_ptr<const ProbeRow> row) {
      auto it = states.find(*row->src);
      if (it != states.end()) it->second->Apply(std::move(row));
      return Status::Ok();
    });
    if (!st.ok()) return st;
  }
  if (Status s = LoadEventsOpen(); !s.ok()) return s;
  if (Status s = LoadDiagnosesOpen(); !s.ok()) return s;
  if (Status s = LoadFabricParts(); !s.ok()) return s;
  snapshot_.Clear();
  for (auto& [name, st] : states) {
    read_.CapDestinations(*st, 0);
    snapshot_.PutNode(std::move(st));
  }
  snapshot_dirty_ = false;
  return Status::Ok();
}




Status SnapshotLoader::FollowCommit(const std::vector<CommittedReport>& reports,
                                   const std::set<std::string>& bare_nodes, FabricChange fabric) {
  // A report's rows: the node's index from the report's earliest end on,
  // only the report's own (not the rows of its earlier reports this
  // snapshot holds already).
  static const std::string kReportSql = std::string("SELECT ") + kProbeRowColumns +
                                        " FROM probe_summaries WHERE src = ?1 AND interval_end >= ?2 AND "
                                        "report_id = ?3 ORDER BY id";
  static const std::string kBareSql = std::string("SELECT ") + kProbeRowColumns +
                                      " FROM probe_summaries WHERE src = ?1 AND interval_end >= GREATEST(?2, "
                                      "(SELECT COALESCE(MAX(interval_end), 0) FROM probe_summaries WHERE src = ?1) - ?3) "
                                      "ORDER BY interval_end, id";
  std::set<std::string> nodes = bare_nodes;
  std::vector<std::shared_ptr<const ProbeRow>> rows;
  auto keep = [&rows](std::shared_ptr<const ProbeRow> row) {
    rows.push_back(std::move(row));
    return Status::Ok();
  };
  auto read = [&]() -> Status {
    for (const CommittedReport& r : reports) {
      nodes.insert(r.node);
      if (!r.min_end) continue;
      auto q = Q(kReportSql.c_str());
      if (!q.ok()) return q.status();
      q.value()->Bind(1, r.node).Bind(2, *r.min_end).Bind(3, r.report_id);
      if (Status st = ForEachProbeRow(*q.value(), keep); !st.ok()) return st;
    }
    for (const std::string& name : bare_nodes) {
      auto q = Q(kBareSql.c_str());
      if (!q.ok()) return q.status();
      const std::shared_ptr<const NodeState> held = snapshot_.Node(name);
      q.value()->Bind(1, name).Bind(2, held ? held->newest_end : int64_t{0}).Bind(3, kLoadLookbackMs);
      if (Status st = ForEachProbeRow(*q.value(), keep); !st.ok()) return st;
    }
    return Status::Ok();
  };
  Status st = read();
  if (!st.ok()) {
    snapshot_dirty_ = true;
    return st;
  }
  RefreshSnapshot(nodes, std::move(rows), fabric);
  if (snapshot_dirty_) return Status::Error("the read model could not follow the commit: it is rebuilt at the next one");
  return Status::Ok();
}

void SnapshotLoader::RefreshSnapshot(const std::set<std::string>& nodes, std::vector<std::shared_ptr<const ProbeRow>> rows,
                                     FabricChange fabric, SnapshotUpdate* deferred) {
  if (deferred && !snapshot_dirty_ && !fabric.any()) {
    // The reads of the SQL connection here; the rest in PublishSnapshot.
    auto read = [&]() -> Status {
      std::set<std::string> names = nodes;
      for (const auto& row : rows) names.insert(*row->src);
      auto states = LoadNodeStates(std::vector<std::string>(names.begin(), names.end()));
      if (!states.ok()) return states.status();
      for (auto& [name, st] : states.value()) deferred->states.push_back(std::move(st));
      return LoadEventsOpen();
    };
    if (read().ok()) {
      deferred->rows = std::move(rows);
      deferred->pending = true;
      read_.OwePublish();
    } else {
      deferred->states.clear();
      snapshot_dirty_ = true;  // rebuilt whole at the next commit
    }
    return;
  }
  read_.WaitForPublishedSnapshot();
  auto refresh = [&]() -> Status {
    if (snapshot_dirty_) return LoadSnapshot();
    std::set<std::string> names = nodes;
    for (const auto& row : rows) names.insert(*row->src);
    auto loaded = LoadNodeStates(std::vector<std::string>(names.begin(), names.end()));
    if (!loaded.ok()) return loaded.status();
    std::map<std::string, std::shared_ptr<NodeState>> fresh = std::move(loaded).value();
    std::vector<std::pair<NodeState*, std::shared_ptr<const NodeState>>> older;  // fresh state, its published one
    for (auto& [name, state] : fresh)
      if (auto old = snapshot_.Node(name)) older.emplace_back(state.get(), std::move(old));
    for (std::shared_ptr<const ProbeRow>& row : rows) {
      auto it = fresh.find(*row->src);
      if (it != fresh.end()) it->second->Apply(std::move(row));
    }
    for (auto& [state, old] : older) state->MergeOlder(old->pairs);
    for (auto& entry : fresh) {
      const auto* state = entry.second.get();  // a structured binding cannot be captured before C++20
      auto it = std::find_if(older.begin(), older.end(), [state](const auto& o) { return o.first == state; });
      read_.CapDestinations(*entry.second, it == older.end() ? 0 : it->second->pairs.size());
    }
    if (fabric.leaves) {
      // A sweep that moved a link can move any node's leaf switch.
      for (const auto& n : snapshot_.Take().nodes) {
        if (fresh.count(n->name)) continue;
        auto leaf = LeafSwitch(n->name);
        if (!leaf.ok()) return leaf.status();
        if (leaf.value() == n->leaf_switch) continue;
        auto st = std::make_shared<NodeState>(*n);
        st->leaf_switch = leaf.value();
        fresh[n->name] = std::move(st);
      }
    }
    if (fabric.parts)
      if (Status st = LoadFabricParts(); !st.ok()) return st;
    if (Status st = LoadEventsOpen(); !st.ok()) return st;
    for (auto& [name, st] : fresh) snapshot_.PutNode(std::move(st));
    std::vector<std::shared_ptr<const NodeState>> replaced;
    for (auto& [state, old] : older) replaced.push_back(std::move(old));
    read_.AddReplaced(std::move(replaced));
    return Status::Ok();
  };
  // The commit stands either way; a snapshot that could not follow is rebuilt
  // whole at the next commit.
  snapshot_dirty_ = !refresh().ok();
}

}  // namespace rdmascope::collector
