// Store: upkeep of the read snapshot (read_snapshot.h). Runs on the writer's
// side, under mu_: the probe rows a commit wrote come from memory, the state
// of the nodes it touched from keyed lookups; never a scan of the history.
#include <algorithm>
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

Result<std::string> SnapshotLoader::LeafSwitch(const std::string& name) {
  // The node's own neighbour report, else a sweep's switch port whose remote
  // is one of the node's adapters (node GUIDs joined).
  auto q = Q("SELECT COALESCE("
             "(SELECT switch_guid FROM node_neighbours nn WHERE nn.node = ?1 AND nn.switch_type = 'Switch' "
             " ORDER BY nn.device, nn.port LIMIT 1), "
             "(SELECT fp.guid FROM ports p JOIN fabric_ports fp "
             "   ON fp.remote_guid = '0x' || lower(replace(p.node_guid, ':', '')) "
             " JOIN fabric_nodes fn ON fn.guid = fp.guid AND fn.type = 'Switch' "
             " WHERE p.node = ?1 ORDER BY p.device, p.port LIMIT 1), '')");
  if (!q.ok()) return q.status();
  SqlStmt& s = *q.value();
  s.Bind(1, name);
  auto r = s.Step();
  if (!r.ok()) return r.status();
  std::string leaf = s.Text(0);
  s.Reset();
  return leaf;
}

Result<std::shared_ptr<NodeState>> SnapshotLoader::LoadNodeState(const std::string& name) {
  auto st = std::make_shared<NodeState>();
  {
    auto q = Q("SELECT labels, interval_s, last_generated_at, last_report_at FROM nodes WHERE name = ?1");
    if (!q.ok()) return q.status();
    SqlStmt& s = *q.value();
    s.Bind(1, name);
    auto r = s.Step();
    if (!r.ok()) return r.status();
    if (!r.value()) return std::shared_ptr<NodeState>();  // not a reporting node
    st->name = name;
    st->labels = json::parse(s.Text(0), nullptr, /*allow_exceptions=*/false);
    st->interval_s = s.OptReal(1);
    st->last_generated_at = s.Int(2);
    st->last_report_at = s.Int(3);
    s.Reset();
  }
  auto leaf = LeafSwitch(name);
  if (!leaf.ok()) return leaf.status();
  st->leaf_switch = leaf.value();
  {
    // Each port's switch, from the node's neighbour report: its leaf per rail.
    auto q = Q("SELECT device, port, switch_guid FROM node_neighbours WHERE node = ?1 AND switch_type = 'Switch'");
    if (!q.ok()) return q.status();
    SqlStmt& s = *q.value();
    s.Bind(1, name);
    for (;;) {
      auto r = s.Step();
      if (!r.ok()) {
        s.Reset();
        return r.status();
      }
      if (!r.value()) break;
      st->port_leaves[s.Text(0) + "/" + std::to_string(s.Int(1))] = s.Text(2);
    }
    s.Reset();
  }
  struct Part {
    json NodeState::*member;
    const char* sql;
  };
  static const Part kParts[] = {
      // Every column the API's port list shows (the paged list answers from
      // these rows; /metrics reads its own few of them).
      {&NodeState::ports, "SELECT node, device, port, state, state_name, phys_state, phys_state_name, lid, sm_lid, "
                          "link_layer, active_mtu, rate_gbps, rate_text, gids AS gids_json, fw, node_guid, "
                          "updated_at AS updated_at_ms FROM ports WHERE node = ?1 ORDER BY device, port"},
      {&NodeState::counters, "SELECT node, device, port, kind, name, value FROM counters_latest WHERE node = ?1 AND "
                             "value IS NOT NULL ORDER BY device, port, kind, name"},
      {&NodeState::wc_totals, "SELECT node, status, count FROM wc_error_totals WHERE node = ?1 ORDER BY status"},
  };
  for (const Part& p : kParts) {
    auto q = Q(p.sql);
    if (!q.ok()) return q.status();
    q.value()->Bind(1, name);
    auto rows = Rows(*q.value());
    if (!rows.ok()) return rows.status();
    (*st).*(p.member) = std::move(rows).value();
  }
  return st;
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
    for (const std::string& name : names) {
      auto st = LoadNodeState(name);
      if (!st.ok()) return st.status();
      if (st.value()) states[name] = std::move(st).value();
    }
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




Status SnapshotLoader::FollowCommit(const std::set<std::string>& nodes, FabricChange fabric) {
  static const std::string kSql = std::string("SELECT ") + kProbeRowColumns +
                                  " FROM probe_summaries WHERE src = ?1 AND interval_end >= GREATEST(?2, "
                                  "(SELECT COALESCE(MAX(interval_end), 0) FROM probe_summaries WHERE src = ?1) - ?3) "
                                  "ORDER BY interval_end, id";
  std::vector<std::shared_ptr<const ProbeRow>> rows;
  auto read = [&]() -> Status {
    auto q = Q(kSql.c_str());
    if (!q.ok()) return q.status();
    for (const std::string& name : nodes) {
      const std::shared_ptr<const NodeState> held = snapshot_.Node(name);
      q.value()->Bind(1, name).Bind(2, held ? held->newest_end : int64_t{0}).Bind(3, kLoadLookbackMs);
      Status st = ForEachProbeRow(*q.value(), [&rows](std::shared_ptr<const ProbeRow> row) {
        rows.push_back(std::move(row));
        return Status::Ok();
      });
      if (!st.ok()) return st;
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
      for (const std::string& name : names) {
        auto st = LoadNodeState(name);
        if (!st.ok()) return st.status();
        if (st.value()) deferred->states.push_back(std::move(st).value());
      }
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
    std::map<std::string, std::shared_ptr<NodeState>> fresh;
    std::vector<std::pair<NodeState*, std::shared_ptr<const NodeState>>> older;  // fresh state, its published one
    auto state_of = [&](const std::string& name) -> Result<NodeState*> {
      auto it = fresh.find(name);
      if (it != fresh.end()) return it->second.get();
      auto st = LoadNodeState(name);
      if (!st.ok()) return st.status();
      if (!st.value()) return static_cast<NodeState*>(nullptr);
      NodeState* state = (fresh[name] = std::move(st).value()).get();
      if (auto old = snapshot_.Node(name)) older.emplace_back(state, std::move(old));
      return state;
    };
    for (const std::string& name : nodes)
      if (auto st = state_of(name); !st.ok()) return st.status();
    for (std::shared_ptr<const ProbeRow>& row : rows) {
      auto st = state_of(*row->src);
      if (!st.ok()) return st.status();
      if (st.value()) st.value()->Apply(std::move(row));
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
