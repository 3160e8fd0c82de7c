// Ingest of a report's InfiniBand sections (inside the report's transaction).
//
// Contract:
//  - "neighbours": one node_neighbours row per (node, device, port), replaced
//    by newer reports; a switch not yet in fabric_nodes is added with the
//    neighbour's name and type, a known one only counts as seen (any node
//    token sends neighbours: only sweeps, which need the sweep role, rename
//    or retype a switch).
//  - "fabric" (a sweep): every node and port upserted, first/last seen kept;
//    a port's error counters are appended to fabric_port_samples when they
//    changed; links upserted with both ends ordered.
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
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "collector/core/json_get.h"
#include "collector/store/report_writer.h"
#include "common/ib_encoding.h"

namespace rdmascope::collector {
namespace {

using json = nlohmann::json;

#define FABRIC_TRY(expr)             \
  do {                               \
    ::rdmascope::Status st_ = (expr); \
    if (!st_.ok()) return st_;       \
  } while (0)

struct End {
  std::string guid;
  int64_t port = 0;
  bool operator<(const End& o) const { return std::tie(guid, port) < std::tie(o.guid, o.port); }
  bool operator==(const End& o) const { return guid == o.guid && port == o.port; }
};

std::string EndText(const End& e, const std::map<std::string, std::string>& names) {
  auto it = names.find(e.guid);
  std::string name = it == names.end() ? "" : " \"" + it->second + "\"";
  return e.guid + "[" + std::to_string(e.port) + "]" + name;
}

std::string LinkKey(const char* kind, const End& a, const End& b) {
  return std::string(kind) + "|" + a.guid + "|" + std::to_string(a.port) + "|" + b.guid + "|" + std::to_string(b.port);
}

using ib::SpeedRank;
using ib::WidthRank;

}  // namespace

Status ReportWriter::IngestFabric(const json& r, int64_t at) {
  const std::string node = r["node"].get<std::string>();
  if (const json* ns = Field(r, "neighbours")) {
    for (const json& n : *ns) {
      const json& p = n["port"];
      auto up = Q("INSERT INTO node_neighbours(node, device, port, switch_guid, switch_port, switch_type, "
                  "switch_description, state, width, speed, counters, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                  "?10, ?11, ?12) ON CONFLICT(node, device, port) DO UPDATE SET switch_guid = excluded.switch_guid, "
                  "switch_port = excluded.switch_port, switch_type = excluded.switch_type, "
                  "switch_description = excluded.switch_description, state = excluded.state, width = excluded.width, "
                  "speed = excluded.speed, counters = excluded.counters, at = excluded.at WHERE excluded.at >= at");
      if (!up.ok()) return up.status();
      Stmt& s = *up.value();
      s.Bind(1, node).Bind(2, n["device"].get<std::string>()).Bind(3, *OptInt(n, "local_port"));
      s.Bind(4, n["guid"].get<std::string>()).Bind(5, *OptInt(p, "port")).Bind(6, n["type"].get<std::string>());
      s.Bind(7, n["description"].get<std::string>()).Bind(8, OptText(p, "state")).Bind(9, OptText(p, "width"));
      s.Bind(10, OptText(p, "speed")).Bind(11, p.contains("counters") ? p["counters"].dump() : std::string("{}"));
      s.Bind(12, at);
      FABRIC_TRY(s.Run());
      FABRIC_TRY(UpsertFabricNode(n, node, at, /*describe=*/false));
    }
  }
  const json* f = Field(r, "fabric");
  if (!f) return Status::Ok();

  std::map<std::string, std::string> names;  // guid -> description
  std::set<std::string> present;             // nodes this sweep reached
  std::set<std::string> unreachable;         // nodes behind a silent port, or silent themselves
  std::map<End, End> seen;                   // every port's remote, both directions
  std::map<End, const json*> ports;
  for (const json& n : (*f)["nodes"]) {
    const std::string guid = n["guid"].get<std::string>();
    names[guid] = n["description"].get<std::string>();
    present.insert(guid);
    FABRIC_TRY(UpsertFabricNode(n, node, at, /*describe=*/true));
    for (const json& p : n["ports"]) {
      End e{guid, *OptInt(p, "port")};
      ports[e] = &p;
      if (const json* rem = Field(p, "remote")) seen[e] = End{(*rem)["guid"].get<std::string>(), *OptInt(*rem, "port")};
      FABRIC_TRY(IngestFabricPort(e.guid, e.port, p, names, at));
    }
  }
  if (const json* un = Field(*f, "unreachable")) {
    for (const json& u : *un) {
      if (auto g = OptText(u, "guid")) unreachable.insert(*g);
      if (const json* via = Field(u, "via")) unreachable.insert("via|" + (*via)["guid"].get<std::string>() + "|" +
                                                                std::to_string(*OptInt(*via, "port")));
    }
  }
  // Links of this sweep, ordered ends.
  std::set<std::pair<End, End>> links;
  for (const auto& [a, b] : seen) links.insert(a < b ? std::make_pair(a, b) : std::make_pair(b, a));
  for (const auto& [a, b] : links) {
    auto up = Q("INSERT INTO fabric_links(a_guid, a_port, b_guid, b_port, first_seen_at, last_seen_at, gone_at) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?5, NULL) ON CONFLICT(a_guid, a_port, b_guid, b_port) DO UPDATE SET "
                "last_seen_at = MAX(last_seen_at, excluded.last_seen_at), gone_at = NULL");
    if (!up.ok()) return up.status();
    up.value()->Bind(1, a.guid).Bind(2, a.port).Bind(3, b.guid).Bind(4, b.port).Bind(5, at);
    FABRIC_TRY(up.value()->Run());
    FABRIC_TRY(CloseEventByKey(LinkKey("link_down", a, b), at));
    // Degraded: active below what both ends support.
    const json* pa = ports.count(a) ? ports[a] : nullptr;
    const json* pb = ports.count(b) ? ports[b] : nullptr;
    if (pa && pb) {
      // The slower end's view of the active rate (both ends should agree).
      auto slower = [&](const char* k, int (*rank)(const std::string&)) {
        std::string x = OptText(*pa, k).value_or(""), y = OptText(*pb, k).value_or("");
        return rank(y) >= 0 && (rank(x) < 0 || rank(y) < rank(x)) ? y : x;
      };
      std::string w = slower("width", WidthRank), sp = slower("speed", SpeedRank);
      int best_w = std::min(WidthRank(OptText(*pa, "width_supported").value_or("")),
                            WidthRank(OptText(*pb, "width_supported").value_or("")));
      int best_s = std::min(SpeedRank(OptText(*pa, "speed_supported").value_or("")),
                            SpeedRank(OptText(*pb, "speed_supported").value_or("")));
      bool slow_w = WidthRank(w) >= 0 && best_w >= 0 && WidthRank(w) < best_w;
      bool slow_s = SpeedRank(sp) >= 0 && best_s >= 0 && SpeedRank(sp) < best_s;
      const std::string key = LinkKey("link_degraded", a, b);
      if (slow_w || slow_s) {
        std::string detail = "link " + EndText(a, names) + " <-> " + EndText(b, names) + " runs " + w + " " + sp +
                             "; both ends support " + OptText(*pa, "width_supported").value_or("?") + "/" +
                             OptText(*pb, "width_supported").value_or("?") + " " +
                             OptText(*pa, "speed_supported").value_or("?") + "/" +
                             OptText(*pb, "speed_supported").value_or("?");
        FABRIC_TRY(OpenOrTouchEvent("link_degraded", key, names[a.guid], names[b.guid], std::nullopt, a.guid, a.port,
                                    slow_w ? "width " + w : "speed " + sp, detail, 1, at));
      } else {
        FABRIC_TRY(CloseEventByKey(key, at));
      }
    }
  }
  // Links known before and not seen now.
  auto known = Q("SELECT a_guid, a_port, b_guid, b_port FROM fabric_links WHERE gone_at IS NULL AND last_seen_at < ?1");
  if (!known.ok()) return known.status();
  known.value()->Bind(1, at);
  std::vector<std::pair<End, End>> missing;
  for (;;) {
    auto row = known.value()->Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    Stmt& k = *known.value();
    missing.push_back({End{k.Text(0), k.Int(1)}, End{k.Text(2), k.Int(3)}});
  }
  known.value()->Reset();
  for (const auto& [a, b] : missing) {
    bool a_here = present.count(a.guid) > 0, b_here = present.count(b.guid) > 0;
    if (!a_here && !b_here) continue;  // neither end reached: unknown
    if (unreachable.count(a.guid) || unreachable.count(b.guid) ||
        unreachable.count("via|" + a.guid + "|" + std::to_string(a.port)) ||
        unreachable.count("via|" + b.guid + "|" + std::to_string(b.port)))
      continue;  // the other end is there but silent: not evidence of a cable gone
    auto gone = Q("UPDATE fabric_links SET gone_at = ?5 WHERE a_guid = ?1 AND a_port = ?2 AND b_guid = ?3 AND "
                  "b_port = ?4 AND gone_at IS NULL");
    if (!gone.ok()) return gone.status();
    gone.value()->Bind(1, a.guid).Bind(2, a.port).Bind(3, b.guid).Bind(4, b.port).Bind(5, at);
    FABRIC_TRY(gone.value()->Run());
    std::map<std::string, std::string> all = names;
    FABRIC_TRY(FabricNames({a.guid, b.guid}, &all));
    std::string state;
    for (const End& e : {a, b})
      if (ports.count(e))
        state += " " + EndText(e, all) + " " + OptText(*ports[e], "state").value_or("?") + "/" +
                 OptText(*ports[e], "phys_state").value_or("?") + ";";
    std::string detail = "link " + EndText(a, all) + " <-> " + EndText(b, all) + " is gone (sweep by " + node + ")" +
                         (state.empty() ? "" : ":" + state);
    FABRIC_TRY(OpenOrTouchEvent("link_down", LinkKey("link_down", a, b), all[a.guid].empty() ? a.guid : all[a.guid],
                                all[b.guid].empty() ? b.guid : all[b.guid], std::nullopt, a.guid, a.port, "gone",
                                detail, 1, at));
  }
  return Status::Ok();
}

Status ReportWriter::UpsertFabricNode(const json& n, const std::string& seen_by, int64_t at, bool describe) {
  auto up = Q(describe ? "INSERT INTO fabric_nodes(guid, type, description, num_ports, lid, first_seen_at, "
                         "last_seen_at, seen_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7) ON CONFLICT(guid) DO UPDATE "
                         "SET type = excluded.type, description = excluded.description, "
                         "num_ports = COALESCE(excluded.num_ports, num_ports), lid = COALESCE(excluded.lid, lid), "
                         "last_seen_at = MAX(last_seen_at, excluded.last_seen_at), seen_by = excluded.seen_by"
                       : "INSERT INTO fabric_nodes(guid, type, description, num_ports, lid, first_seen_at, "
                         "last_seen_at, seen_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7) ON CONFLICT(guid) DO UPDATE "
                         "SET last_seen_at = MAX(last_seen_at, excluded.last_seen_at)");
  if (!up.ok()) return up.status();
  Stmt& s = *up.value();
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
  std::optional<std::string> remote_guid;
  std::optional<int64_t> remote_port;
  {
    auto q = Q("SELECT counters, remote_guid, remote_port FROM fabric_ports WHERE guid = ?1 AND port = ?2 AND "
               "last_seen_at < ?3");
    if (!q.ok()) return q.status();
    q.value()->Bind(1, guid).Bind(2, port).Bind(3, at);
    auto row = q.value()->Step();
    if (!row.ok()) return row.status();
    if (row.value()) {
      before = json::parse(q.value()->Text(0), nullptr, false);
      remote_guid = q.value()->OptText(1);
      remote_port = q.value()->OptInt(2);
    }
    q.value()->Reset();
  }
  const json* rem = Field(p, "remote");
  if (rem) {
    remote_guid = (*rem)["guid"].get<std::string>();
    remote_port = *OptInt(*rem, "port");
  }
  if (!errors.empty()) {
    // link_errors: a rise past the threshold since the previous sweep, on this end.
    std::string rose;
    for (const auto& [k, v] : errors.items()) {
      uint64_t now = v.get<uint64_t>();
      uint64_t prev = before.is_object() && before.contains(k) && before[k].is_number_unsigned()
                          ? before[k].get<uint64_t>() : now;
      uint64_t delta = now >= prev ? now - prev : now;  // backwards: reset, all of it is new
      if (delta >= options_.thresholds.at(k))
        rose += (rose.empty() ? "" : ", ") + k + " +" + std::to_string(delta) + " (threshold " +
                std::to_string(options_.thresholds.at(k)) + ")";
    }
    End me{guid, port};
    std::optional<End> other;
    if (remote_guid && remote_port) other = End{*remote_guid, *remote_port};
    const std::string key = "link_errors|" + guid + "|" + std::to_string(port);
    auto name = names.find(guid);
    std::string desc = name == names.end() ? guid : name->second;
    if (!rose.empty()) {
      std::map<std::string, std::string> all = names;
      if (other) FABRIC_TRY(FabricNames({other->guid}, &all));
      std::string detail = EndText(me, all) + ": " + rose +
                           (other ? " on the link to " + EndText(*other, all) : std::string(" (no link)"));
      FABRIC_TRY(OpenOrTouchEvent("link_errors", key, desc, other ? std::optional<std::string>(all[other->guid])
                                                                  : std::nullopt,
                                  std::nullopt, guid, port, "errors", detail, 1, at));
    } else {
      FABRIC_TRY(CloseEventByKey(key, at));
    }
    if (errors != before) {
      auto ins = Q("INSERT OR REPLACE INTO fabric_port_samples(guid, port, at, counters) VALUES (?1, ?2, ?3, ?4)");
      if (!ins.ok()) return ins.status();
      ins.value()->Bind(1, guid).Bind(2, port).Bind(3, at).Bind(4, errors.dump());
      FABRIC_TRY(ins.value()->Run());
    }
  }
  auto up = Q("INSERT INTO fabric_ports(guid, port, lid, state, phys_state, width, speed, width_supported, "
              "speed_supported, remote_guid, remote_port, counters, last_seen_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
              "?8, ?9, ?10, ?11, ?12, ?13) ON CONFLICT(guid, port) DO UPDATE SET lid = excluded.lid, "
              "state = excluded.state, phys_state = excluded.phys_state, width = excluded.width, speed = excluded.speed, "
              "width_supported = excluded.width_supported, speed_supported = excluded.speed_supported, "
              "remote_guid = excluded.remote_guid, remote_port = excluded.remote_port, "
              "counters = CASE WHEN excluded.counters = '{}' THEN counters ELSE excluded.counters END, "
              "last_seen_at = excluded.last_seen_at WHERE excluded.last_seen_at >= last_seen_at");
  if (!up.ok()) return up.status();
  Stmt& s = *up.value();
  s.Bind(1, guid).Bind(2, port).Bind(3, OptInt(p, "lid")).Bind(4, OptText(p, "state")).Bind(5, OptText(p, "phys_state"));
  s.Bind(6, OptText(p, "width")).Bind(7, OptText(p, "speed")).Bind(8, OptText(p, "width_supported"));
  s.Bind(9, OptText(p, "speed_supported"));
  if (rem) s.Bind(10, (*rem)["guid"].get<std::string>()).Bind(11, *OptInt(*rem, "port"));
  else s.BindNull(10).BindNull(11);
  const json* c = Field(p, "counters");
  s.Bind(12, c ? c->dump() : std::string("{}")).Bind(13, at);
  return s.Run();
}

}  // namespace rdmascope::collector
