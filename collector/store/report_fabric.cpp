// Ingest of a report's InfiniBand sections (inside the report's transaction).
//
// Contract:
//  - "neighbours": one node_neighbours row per (node, device, port), replaced
//    by newer reports; a switch not yet in fabric_nodes is added with the
//    neighbour's name and type, a known one only counts as seen (any node
//    token sends neighbours: only sweeps, which need the sweep role, rename
//    or retype a switch). The error counters the agent read on that switch
//    port join the port's fabric_port_samples when they differ from its
//    newest sample, as a sweep's do: the switch end of every host cable is
//    watched even where no agent sweeps, and the diagnosis sees its rises.
//  - Whenever a sample is appended (either section), fabric_port_rises
//    follows the port's newest sample: its error counters that rose over the
//    sample before it (SampleErrorRises, collector/rules/link_rules.h), or
//    no row when none rose (0014_fabric_port_rises.sql).
//  - "fabric" (a sweep): every node and port upserted, first/last seen kept;
//    a port's error counters are appended to fabric_port_samples when they
//    changed; links upserted with both ends ordered; a switch's "lft" kept
//    when it changed, and the topology version bumped once when anything a
//    trace reads changed (report_routes.cpp).
//  - Events, all keyed by the link's ordered ends:
//    link_down      a link seen before is missing from a sweep that saw one of
//                   its ends (that end's port no longer leads to the other end);
//                   closed when the link is seen again. A link whose ends are
//                   both absent (or unreachable) is unknown, not down.
//    link_errors    an error counter of either end rose by at least its
//                   threshold since the previous sweep; closed by a sweep with
//                   no such rise.
//    link_degraded  active width or speed below the best that both ends
//                   support; closed when it is back.
//    fabric_changed one per sweep that added a node or a link never seen
//                   before, changed a node's description or a node's LID
//                   to another one it read (not for the first sweep into a
//                   store that has none): written
//                   closed at the sweep's time, a record of what changed
//                   (the first few of each kind named, every one counted),
//                   keyed by the sweeping node and the time.
#include <map>
#include <set>
#include <vector>

#include "collector/core/json_get.h"
#include "collector/rules/link_rules.h"
#include "collector/store/report_writer.h"
#include "collector/store/store_status_macros.h"

namespace rdmascope::collector {

using json = nlohmann::json;

namespace {
// A port's error sample at a time, replacing one stored for that very time.
constexpr char kPortSampleUpsertSql[] =
    "INSERT INTO fabric_port_samples(guid, port, at, counters) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT(guid, port, at) DO UPDATE SET counters = excluded.counters";
}  // namespace

// What one sweep reached: node names, the nodes present and silent, every
// port (by its end) and every port's remote end, both directions.
struct ReportWriter::Sweep {
  std::map<std::string, std::string> names;  // guid -> description
  std::set<std::string> present;             // nodes this sweep reached
  std::set<std::string> unreachable;         // nodes behind a silent port ("via|guid|port"), or silent themselves
  std::map<LinkEnd, LinkEnd> seen;
  std::map<LinkEnd, const json*> ports;
  // Whether an end (or the node behind it) was silent in this sweep.
  bool Silent(const LinkEnd& e) const {
    return unreachable.count(e.guid) || unreachable.count("via|" + e.guid + "|" + std::to_string(e.port));
  }
};

Status ReportWriter::IngestFabric(const json& r, int64_t at) {
  const std::string node = r["node"].get<std::string>();
  if (const json* ns = Field(r, "neighbours"))
    for (const json& n : *ns) RETURN_IF_ERROR(IngestNeighbour(node, n, at));
  const json* f = Field(r, "fabric");
  if (!f) return Status::Ok();
  topology_changed_ = false;
  sweep_changes_ = SweepChanges();
  {
    // fabric_ports: only sweeps write it (neighbours add switches to fabric_nodes).
    ASSIGN_STMT(any, Q("SELECT 1 FROM fabric_ports LIMIT 1"));
    auto row = any.Step();
    if (!row.ok()) return row.status();
    sweep_changes_.first = !row.value();
    any.Reset();
  }
  Sweep sweep;
  fabric_change_.parts = true;
  RETURN_IF_ERROR(IngestSweepNodes(*f, node, at, &sweep));
  std::set<std::pair<LinkEnd, LinkEnd>> links;  // this sweep's links, ends ordered
  for (const auto& [a, b] : sweep.seen) links.insert(a < b ? std::make_pair(a, b) : std::make_pair(b, a));
  for (const auto& [a, b] : links) RETURN_IF_ERROR(IngestSweepLink(sweep, a, b, at));
  RETURN_IF_ERROR(MarkGoneLinks(sweep, node, at));
  RETURN_IF_ERROR(RecordSweepChanges(node, at));
  if (topology_changed_) fabric_change_.leaves = true;
  return topology_changed_ ? BumpTopologyVersion() : Status::Ok();
}

Status ReportWriter::IngestNeighbour(const std::string& node, const json& n, int64_t at) {
  const json& p = n["port"];
  ASSIGN_STMT(s, Q("INSERT INTO node_neighbours(node, device, port, switch_guid, switch_port, switch_type, "
                   "switch_description, state, width, speed, counters, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                   "?9, ?10, ?11, ?12) ON CONFLICT(node, device, port) DO UPDATE SET switch_guid = "
                   "excluded.switch_guid, switch_port = excluded.switch_port, switch_type = excluded.switch_type, "
                   "switch_description = excluded.switch_description, state = excluded.state, width = "
                   "excluded.width, speed = excluded.speed, counters = excluded.counters, at = excluded.at WHERE "
                   "excluded.at >= node_neighbours.at"));
  s.Bind(1, node).Bind(2, n["device"].get<std::string>()).Bind(3, *OptInt(n, "local_port"));
  s.Bind(4, n["guid"].get<std::string>()).Bind(5, *OptInt(p, "port")).Bind(6, n["type"].get<std::string>());
  s.Bind(7, n["description"].get<std::string>()).Bind(8, OptText(p, "state")).Bind(9, OptText(p, "width"));
  s.Bind(10, OptText(p, "speed")).Bind(11, p.contains("counters") ? p["counters"].dump() : std::string("{}"));
  s.Bind(12, at);
  RETURN_IF_ERROR(s.Run());
  if (const json* c = Field(p, "counters"))
    RETURN_IF_ERROR(AppendNeighbourSample(n["guid"].get<std::string>(), *OptInt(p, "port"), *c, at));
  return UpsertFabricNode(n, node, at, /*describe=*/false);
}

Status ReportWriter::AppendNeighbourSample(const std::string& guid, int64_t port, const json& counters, int64_t at) {
  json errors = json::object();  // error counters only (the threshold table), as a sweep keeps
  for (const auto& [k, v] : counters.items())
    if (options_.thresholds.count(k) && v.is_number_integer()) errors[k] = v;
  if (errors.empty()) return Status::Ok();
  std::optional<json> before;  // the port's newest sample so far, older than this one
  {
    ASSIGN_STMT(q, Q("SELECT counters, at FROM fabric_port_samples WHERE guid = ?1 AND port = ?2 ORDER BY at DESC LIMIT 1"));
    q.Bind(1, guid).Bind(2, port);
    auto row = q.Step();
    if (!row.ok()) return row.status();
    bool same = false;
    if (row.value()) {
      same = q.Int(1) >= at;  // a newer sample is already kept
      if (!same) before = json::parse(q.Text(0), nullptr, false);
      same = same || *before == errors;  // unchanged
    }
    q.Reset();
    if (same) return Status::Ok();
  }
  ASSIGN_STMT(ins, Q(kPortSampleUpsertSql));
  ins.Bind(1, guid).Bind(2, port).Bind(3, at).Bind(4, errors.dump());
  RETURN_IF_ERROR(ins.Run());
  // This sample is the port's newest: its rises are over the one read above.
  return PutPortRises(guid, port, at, before ? SampleErrorRises(errors, *before) : json::object());
}

Status ReportWriter::KeepPortRises(const std::string& guid, int64_t port) {
  ASSIGN_STMT(q, Q("SELECT counters, at FROM fabric_port_samples WHERE guid = ?1 AND port = ?2 ORDER BY at DESC LIMIT 2"));
  q.Bind(1, guid).Bind(2, port);
  json newest, before;
  int64_t at = 0;
  int rows = 0;
  for (; rows < 2; ++rows) {
    auto row = q.Step();
    if (!row.ok()) return Status::Error("reading the newest samples of fabric port " + guid + "/" +
                                        std::to_string(port) + ": " + row.status().message());
    if (!row.value()) break;
    (rows == 0 ? newest : before) = json::parse(q.Text(0), nullptr, false);
    if (rows == 0) at = q.Int(1);
  }
  q.Reset();
  return PutPortRises(guid, port, at, rows == 2 ? SampleErrorRises(newest, before) : json::object());
}

Status ReportWriter::PutPortRises(const std::string& guid, int64_t port, int64_t at, const json& rises) {
  if (rises.empty()) {
    ASSIGN_STMT(del, Q("DELETE FROM fabric_port_rises WHERE guid = ?1 AND port = ?2"));
    del.Bind(1, guid).Bind(2, port);
    if (Status st = del.Run(); !st.ok())
      return Status::Error("clearing the rises of fabric port " + guid + "/" + std::to_string(port) + ": " +
                           st.message());
    return Status::Ok();
  }
  ASSIGN_STMT(up, Q("INSERT INTO fabric_port_rises(guid, port, at, rises) VALUES (?1, ?2, ?3, ?4) "
                    "ON CONFLICT(guid, port) DO UPDATE SET at = excluded.at, rises = excluded.rises"));
  up.Bind(1, guid).Bind(2, port).Bind(3, at).Bind(4, rises.dump());
  if (Status st = up.Run(); !st.ok())
    return Status::Error("keeping the rises of fabric port " + guid + "/" + std::to_string(port) + ": " +
                         st.message());
  return Status::Ok();
}

Status ReportWriter::IngestSweepNodes(const json& f, const std::string& node, int64_t at, Sweep* sweep) {
  for (const json& n : f["nodes"]) {
    const std::string guid = n["guid"].get<std::string>();
    sweep->names[guid] = n["description"].get<std::string>();
    sweep->present.insert(guid);
    RETURN_IF_ERROR(UpsertFabricNode(n, node, at, /*describe=*/true));
    if (const json* lft = Field(n, "lft")) RETURN_IF_ERROR(IngestLft(guid, *lft, node, at));
    for (const json& p : n["ports"]) {
      LinkEnd e{guid, *OptInt(p, "port")};
      sweep->ports[e] = &p;
      if (const json* rem = Field(p, "remote"))
        sweep->seen[e] = LinkEnd{(*rem)["guid"].get<std::string>(), *OptInt(*rem, "port")};
      RETURN_IF_ERROR(IngestFabricPort(e.guid, e.port, p, sweep->names, at));
    }
  }
  if (const json* un = Field(f, "unreachable")) {
    for (const json& u : *un) {
      if (auto g = OptText(u, "guid")) sweep->unreachable.insert(*g);
      if (const json* via = Field(u, "via"))
        sweep->unreachable.insert("via|" + (*via)["guid"].get<std::string>() + "|" +
                                  std::to_string(*OptInt(*via, "port")));
    }
  }
  return Status::Ok();
}

Status ReportWriter::IngestSweepLink(const Sweep& sweep, const LinkEnd& a, const LinkEnd& b, int64_t at) {
  {
    // A link gone before and back now changes the topology.
    ASSIGN_STMT(back, Q("UPDATE fabric_links SET gone_at = NULL WHERE a_guid = ?1 AND a_port = ?2 AND b_guid = ?3 AND "
                        "b_port = ?4 AND gone_at IS NOT NULL"));
    back.Bind(1, a.guid).Bind(2, a.port).Bind(3, b.guid).Bind(4, b.port);
    RETURN_IF_ERROR(back.Run());
    if (db_.Changes() > 0) topology_changed_ = true;
  }
  // RETURNING first_seen_at: this very sweep's time on a link never seen before.
  ASSIGN_STMT(up, Q("INSERT INTO fabric_links(a_guid, a_port, b_guid, b_port, first_seen_at, last_seen_at, gone_at) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?5, NULL) ON CONFLICT(a_guid, a_port, b_guid, b_port) DO UPDATE "
                    "SET last_seen_at = GREATEST(fabric_links.last_seen_at, excluded.last_seen_at), gone_at = NULL "
                    "RETURNING first_seen_at"));
  up.Bind(1, a.guid).Bind(2, a.port).Bind(3, b.guid).Bind(4, b.port).Bind(5, at);
  {
    auto row = up.Step();
    if (!row.ok()) return row.status();
    if (row.value() && up.Int(0) == at && !sweep_changes_.first)
      sweep_changes_.links_added.push_back(LinkEndText(a, sweep.names) + " <-> " + LinkEndText(b, sweep.names));
    up.Reset();
  }
  RETURN_IF_ERROR(CloseEventByKey(LinkKey("link_down", a, b), at));
  auto pa = sweep.ports.find(a), pb = sweep.ports.find(b);
  if (pa == sweep.ports.end() || pb == sweep.ports.end()) return Status::Ok();
  const LinkRate rate =
      JudgeLinkRate(*pa->second, *pb->second, LinkEndText(a, sweep.names), LinkEndText(b, sweep.names));
  const std::string key = LinkKey("link_degraded", a, b);
  if (!rate.degraded) return CloseEventByKey(key, at);
  auto name = [&](const std::string& g) {
    auto it = sweep.names.find(g);
    return it == sweep.names.end() ? std::string() : it->second;
  };
  return OpenOrTouchEvent("link_degraded", key, name(a.guid), name(b.guid), std::nullopt, a.guid, a.port, rate.status,
                          rate.detail, 1, at);
}

Status ReportWriter::MarkGoneLinks(const Sweep& sweep, const std::string& node, int64_t at) {
  ASSIGN_STMT(known, Q("SELECT a_guid, a_port, b_guid, b_port FROM fabric_links WHERE gone_at IS NULL AND "
                       "last_seen_at < ?1"));
  known.Bind(1, at);
  std::vector<std::pair<LinkEnd, LinkEnd>> missing;
  for (;;) {
    auto row = known.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    missing.push_back({LinkEnd{known.Text(0), known.Int(1)}, LinkEnd{known.Text(2), known.Int(3)}});
  }
  known.Reset();
  for (const auto& [a, b] : missing) {
    if (!sweep.present.count(a.guid) && !sweep.present.count(b.guid)) continue;  // neither end reached: unknown
    if (sweep.Silent(a) || sweep.Silent(b)) continue;  // the other end is there but silent: not a cable gone
    RETURN_IF_ERROR(MarkLinkGone(sweep, a, b, node, at));
  }
  return Status::Ok();
}

Status ReportWriter::MarkLinkGone(const Sweep& sweep, const LinkEnd& a, const LinkEnd& b, const std::string& node,
                                  int64_t at) {
  ASSIGN_STMT(gone, Q("UPDATE fabric_links SET gone_at = ?5 WHERE a_guid = ?1 AND a_port = ?2 AND b_guid = ?3 AND "
                      "b_port = ?4 AND gone_at IS NULL"));
  gone.Bind(1, a.guid).Bind(2, a.port).Bind(3, b.guid).Bind(4, b.port).Bind(5, at);
  RETURN_IF_ERROR(gone.Run());
  if (db_.Changes() > 0) topology_changed_ = true;
  std::map<std::string, std::string> all = sweep.names;
  RETURN_IF_ERROR(FabricNames({a.guid, b.guid}, &all));
  std::string state;
  for (const LinkEnd& e : {a, b})
    if (auto p = sweep.ports.find(e); p != sweep.ports.end())
      state += " " + LinkEndText(e, all) + " " + OptText(*p->second, "state").value_or("?") + "/" +
               OptText(*p->second, "phys_state").value_or("?") + ";";
  const std::string detail = "link " + LinkEndText(a, all) + " <-> " + LinkEndText(b, all) + " is gone (sweep by " +
                             node + ")" + (state.empty() ? "" : ":" + state);
  return OpenOrTouchEvent("link_down", LinkKey("link_down", a, b), all[a.guid].empty() ? a.guid : all[a.guid],
                          all[b.guid].empty() ? b.guid : all[b.guid], std::nullopt, a.guid, a.port, "gone", detail, 1,
                          at);
}

Status ReportWriter::UpsertFabricNode(const json& n, const std::string& seen_by, int64_t at, bool describe) {
  if (describe) {
    // A node new to the store, or with another type or LID, changes the topology.
    ASSIGN_STMT(q, Q("SELECT type, lid, description FROM fabric_nodes WHERE guid = ?1"));
    const std::string guid = n["guid"].get<std::string>(), description = n["description"].get<std::string>();
    q.Bind(1, guid);
    auto row = q.Step();
    if (!row.ok()) return row.status();
    if (!row.value() || q.Text(0) != n["type"].get<std::string>() ||
        (OptInt(n, "lid") && q.OptInt(1) != OptInt(n, "lid")))
      topology_changed_ = true;
    const std::string name = guid + " \"" + description + "\"";
    // A description or LID a sweep did not get (its MAD failed: "" or 0,
    // which the row then holds until a sweep reads it again) is no change.
    if (!row.value() && !sweep_changes_.first) {
      sweep_changes_.nodes_added.push_back(name);
    } else if (row.value()) {
      if (!description.empty() && !q.Text(2).empty() && q.Text(2) != description)
        sweep_changes_.described.push_back(guid + " \"" + q.Text(2) + "\" -> \"" + description + "\"");
      if (OptInt(n, "lid").value_or(0) != 0 && q.OptInt(1).value_or(0) != 0 && q.OptInt(1) != OptInt(n, "lid"))
        sweep_changes_.lids.push_back(name + " LID " + std::to_string(*q.OptInt(1)) + " -> " +
                                      std::to_string(*OptInt(n, "lid")));
    }
    q.Reset();
  } else {
    // A neighbour's switch new to the store changes the fabric's counts.
    ASSIGN_STMT(q, Q("SELECT 1 FROM fabric_nodes WHERE guid = ?1"));
    q.Bind(1, n["guid"].get<std::string>());
    auto row = q.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) fabric_change_.parts = true;
    q.Reset();
  }
  auto up = Q(describe ? "INSERT INTO fabric_nodes(guid, type, description, num_ports, lid, first_seen_at, "
                         "last_seen_at, seen_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7) ON CONFLICT(guid) DO UPDATE "
                         "SET type = excluded.type, description = excluded.description, "
                         "num_ports = COALESCE(excluded.num_ports, fabric_nodes.num_ports), lid = COALESCE(excluded.lid, fabric_nodes.lid), "
                         "last_seen_at = GREATEST(fabric_nodes.last_seen_at, excluded.last_seen_at), seen_by = excluded.seen_by"
                       : "INSERT INTO fabric_nodes(guid, type, description, num_ports, lid, first_seen_at, "
                         "last_seen_at, seen_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7) ON CONFLICT(guid) DO UPDATE "
                         "SET last_seen_at = GREATEST(fabric_nodes.last_seen_at, excluded.last_seen_at)");
  if (!up.ok()) return up.status();
  SqlStmt& s = *up.value();
  s.Bind(1, n["guid"].get<std::string>()).Bind(2, n["type"].get<std::string>());
  s.Bind(3, n["description"].get<std::string>()).Bind(4, OptInt(n, "num_ports")).Bind(5, OptInt(n, "lid"));
  s.Bind(6, at).Bind(7, seen_by);
  return s.Run();
}

Status ReportWriter::FabricNames(const std::vector<std::string>& guids, std::map<std::string, std::string>* names) {
  for (const std::string& g : guids) {
    if (names->count(g) && !(*names)[g].empty()) continue;
    auto q = Q("SELECT description FROM fabric_nodes WHERE guid = ?1");
    if (!q.ok()) return q.status();
    q.value()->Bind(1, g);
    auto row = q.value()->Step();
    if (!row.ok()) return row.status();
    if (row.value()) (*names)[g] = q.value()->Text(0);
    q.value()->Reset();
  }
  return Status::Ok();
}

Status ReportWriter::IngestFabricPort(const std::string& guid, int64_t port, const json& p,
                                      const std::map<std::string, std::string>& names, int64_t at) {
  // Error counters only (the threshold table): the history worth keeping.
  json errors = json::object();
  if (const json* c = Field(p, "counters"))
    for (const auto& [k, v] : c->items())
      if (options_.thresholds.count(k)) errors[k] = v;
  json before = json::object();
  std::optional<LinkEnd> other;  // the remote end: this sweep's, else the one stored
  {
    ASSIGN_STMT(q, Q("SELECT counters, remote_guid, remote_port, lid, state FROM fabric_ports WHERE guid = ?1 AND "
                     "port = ?2 AND last_seen_at < ?3"));
    q.Bind(1, guid).Bind(2, port).Bind(3, at);
    auto row = q.Step();
    if (!row.ok()) return row.status();
    const json* rem = Field(p, "remote");
    if (row.value()) {
      before = json::parse(q.Text(0), nullptr, false);
      if (q.OptText(1) && q.OptInt(2)) other = LinkEnd{*q.OptText(1), *q.OptInt(2)};
      // What a trace reads of a port: its LID, its state, its remote end.
      const std::optional<std::string> remote_guid = rem ? OptText(*rem, "guid") : std::nullopt;
      const std::optional<int64_t> remote_port = rem ? OptInt(*rem, "port") : std::nullopt;
      if (q.OptInt(3) != OptInt(p, "lid") || q.OptText(4) != OptText(p, "state") || q.OptText(1) != remote_guid ||
          q.OptInt(2) != remote_port)
        topology_changed_ = true;
    } else {
      topology_changed_ = true;  // a new port (or one a newer sweep already stored)
    }
    q.Reset();
  }
  const json* rem = Field(p, "remote");
  if (rem) other = LinkEnd{(*rem)["guid"].get<std::string>(), *OptInt(*rem, "port")};
  if (!errors.empty()) RETURN_IF_ERROR(JudgeLinkErrors(LinkEnd{guid, port}, other, errors, before, names, at));
  ASSIGN_STMT(s, Q("INSERT INTO fabric_ports(guid, port, lid, state, phys_state, width, speed, width_supported, "
                   "speed_supported, remote_guid, remote_port, counters, last_seen_at) VALUES (?1, ?2, ?3, ?4, ?5, "
                   "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) ON CONFLICT(guid, port) DO UPDATE SET lid = excluded.lid, "
                   "state = excluded.state, phys_state = excluded.phys_state, width = excluded.width, "
                   "speed = excluded.speed, width_supported = excluded.width_supported, "
                   "speed_supported = excluded.speed_supported, remote_guid = excluded.remote_guid, "
                   "remote_port = excluded.remote_port, "
                   "counters = CASE WHEN excluded.counters = '{}' THEN fabric_ports.counters ELSE excluded.counters END, "
                   "last_seen_at = excluded.last_seen_at WHERE excluded.last_seen_at >= fabric_ports.last_seen_at"));
  s.Bind(1, guid).Bind(2, port).Bind(3, OptInt(p, "lid")).Bind(4, OptText(p, "state")).Bind(5, OptText(p, "phys_state"));
  s.Bind(6, OptText(p, "width")).Bind(7, OptText(p, "speed")).Bind(8, OptText(p, "width_supported"));
  s.Bind(9, OptText(p, "speed_supported"));
  if (rem) s.Bind(10, (*rem)["guid"].get<std::string>()).Bind(11, *OptInt(*rem, "port"));
  else s.BindNull(10).BindNull(11);
  const json* c = Field(p, "counters");
  s.Bind(12, c ? c->dump() : std::string("{}")).Bind(13, at);
  return s.Run();
}

Status ReportWriter::JudgeLinkErrors(const LinkEnd& me, const std::optional<LinkEnd>& other, const json& errors,
                                     const json& before, const std::map<std::string, std::string>& names,
                                     int64_t at) {
  const std::string rose = RisenErrorCounters(errors, before, options_.thresholds);
  const std::string key = "link_errors|" + me.guid + "|" + std::to_string(me.port);
  if (rose.empty()) {
    RETURN_IF_ERROR(CloseEventByKey(key, at));
  } else {
    auto name = names.find(me.guid);
    const std::string desc = name == names.end() ? me.guid : name->second;
    std::map<std::string, std::string> all = names;
    if (other) RETURN_IF_ERROR(FabricNames({other->guid}, &all));
    const std::string detail = LinkEndText(me, all) + ": " + rose +
                               (other ? " on the link to " + LinkEndText(*other, all) : std::string(" (no link)"));
    RETURN_IF_ERROR(OpenOrTouchEvent("link_errors", key, desc,
                                     other ? std::optional<std::string>(all[other->guid]) : std::nullopt, std::nullopt,
                                     me.guid, me.port, "errors", detail, 1, at));
  }
  if (errors == before) return Status::Ok();
  ASSIGN_STMT(ins, Q(kPortSampleUpsertSql));
  ins.Bind(1, me.guid).Bind(2, me.port).Bind(3, at).Bind(4, errors.dump());
  RETURN_IF_ERROR(ins.Run());
  // The sample before this one is not at hand (before is the port's last
  // sweep reading, and this sample need not be the newest): read both.
  return KeepPortRises(me.guid, me.port);
}

// One fabric_changed event for the sweep's changes, opened and closed at
// its time; the detail names the first few of each kind and counts all.
Status ReportWriter::RecordSweepChanges(const std::string& sweeper, int64_t at) {
  const SweepChanges& c = sweep_changes_;
  if (c.count() == 0) return Status::Ok();
  constexpr size_t kNamed = 5;
  std::string detail;
  auto part = [&](const std::vector<std::string>& what, const char* one, const char* many) {
    if (what.empty()) return;
    if (!detail.empty()) detail += "; ";
    detail += std::to_string(what.size()) + " " + (what.size() == 1 ? one : many) + ": ";
    for (size_t i = 0; i < what.size() && i < kNamed; ++i) detail += (i ? ", " : "") + what[i];
    if (what.size() > kNamed) detail += ", ...";
  };
  part(c.nodes_added, "node added", "nodes added");
  part(c.links_added, "link added", "links added");
  part(c.described, "description changed", "descriptions changed");
  part(c.lids, "LID changed", "LIDs changed");
  // A record, closed as it is written (only open events are unique by key).
  ASSIGN_STMT(in, Q("INSERT INTO events(kind, key, node, status, detail, count, started_at, last_seen_at, ended_at) "
                    "VALUES ('fabric_changed', ?1, ?2, 'changed', ?3, ?4, ?5, ?5, ?5)"));
  in.Bind(1, "fabric_changed|" + sweeper + "|" + std::to_string(at)).Bind(2, sweeper);
  in.Bind(3, "sweep by " + sweeper + ": " + detail).Bind(4, static_cast<int64_t>(c.count())).Bind(5, at);
  RETURN_IF_ERROR(in.Run());
  closed_events_ = true;
  return Status::Ok();
}

}  // namespace rdmascope::collector
