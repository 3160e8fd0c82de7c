// FabricTopologyReader: the topology, its version and the agents' ports in it.
#include "collector/store/fabric_topology.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace rdmascope::collector {
namespace {

using fabric::Fabric;
using fabric::FabricNode;
using fabric::FabricPort;
using fabric::NodeType;
using End = std::pair<uint64_t, int>;  // a port: node GUID, port number

NodeType TypeOf(std::string_view s) {
  for (NodeType t : {NodeType::kCa, NodeType::kSwitch, NodeType::kRouter})
    if (s == fabric::NodeTypeName(t)) return t;
  return NodeType::kUnknown;
}

int StateOf(std::string_view s) {  // "" (NULL): 0
  for (int i = 1; !s.empty() && i <= 5; ++i)
    if (s == fabric::PortStateName(i)) return i;
  return 0;
}

int PhysOf(std::string_view s) {
  for (int i = 1; !s.empty() && i <= 7; ++i)
    if (s == fabric::PhysStateName(i)) return i;
  return 0;
}

Result<int64_t> ReadVersion(SqlConn& db) {
  auto v = db.QueryInt("SELECT version FROM fabric_topology_version WHERE id = 1");
  if (!v.ok()) return Result<int64_t>::Error("fabric topology version: " + v.status().message());
  return v;
}

// Steps q to its end, calling row(q) for each row; the error names `what`.
template <typename Fn>
Status EachRow(SqlConn& db, const char* what, const char* sql, Fn row) {
  auto q = db.Q(sql);
  if (!q.ok()) return Status::Error(std::string("fabric topology, ") + what + ": " + q.status().message());
  for (;;) {
    auto r = q.value()->Step();
    if (!r.ok()) return Status::Error(std::string("fabric topology, ") + what + ": " + r.status().message());
    if (!r.value()) return Status::Ok();
    row(*q.value());
  }
}

// Every table is scanned in its own order (no ORDER BY: a sorted read of the
// ports table is a b-tree lookup per row at fleet size) and put in order
// here: nodes by GUID, each node's ports by number.
Result<FabricTopology> ReadTopology(SqlConn& db) {
  FabricTopology out;
  auto version = ReadVersion(db);
  if (!version.ok()) return version.status();
  out.version = version.value();
  Fabric& f = out.fabric;
  // Sized once from the counts: a fleet's fabric has tens of thousands of
  // nodes and links, and vectors grown by doubling fault in each copy.
  auto nodes = db.QueryInt("SELECT count(*) FROM fabric_nodes");
  if (!nodes.ok()) return Result<FabricTopology>::Error("fabric topology, counting nodes: " + nodes.status().message());
  auto links = db.QueryInt("SELECT count(*) FROM fabric_links WHERE gone_at IS NULL");
  if (!links.ok()) return Result<FabricTopology>::Error("fabric topology, counting links: " + links.status().message());
  std::vector<FabricNode> all;
  all.reserve(static_cast<size_t>(std::max<int64_t>(0, nodes.value())));
  std::unordered_map<uint64_t, size_t> index;  // GUID -> all
  index.reserve(all.capacity());
  Status s = EachRow(db, "nodes", "SELECT guid, type, description, num_ports, lid FROM fabric_nodes", [&](SqlStmt& q) {
    FabricNode n;
    if (!ParseAnyGuid(q.TextView(0), &n.guid)) return;
    n.type = TypeOf(q.TextView(1));
    n.description = std::string(q.TextView(2));
    n.num_ports = static_cast<int>(q.OptInt(3).value_or(0));
    if (n.num_ports > 0 && n.num_ports < 256) n.ports.reserve(static_cast<size_t>(n.num_ports) + 1);  // and port 0
    n.lid = static_cast<uint32_t>(q.OptInt(4).value_or(0));
    if (index.emplace(n.guid, all.size()).second) all.push_back(std::move(n));
  });
  if (!s.ok()) return s;
  std::vector<std::pair<End, End>> live;  // links not gone, both directions; sorted below
  live.reserve(2 * static_cast<size_t>(std::max<int64_t>(0, links.value())));
  s = EachRow(db, "links", "SELECT a_guid, a_port, b_guid, b_port FROM fabric_links WHERE gone_at IS NULL",
              [&](SqlStmt& q) {
                End a{0, static_cast<int>(q.Int(1))}, b{0, static_cast<int>(q.Int(3))};
                if (!ParseAnyGuid(q.TextView(0), &a.first) || !ParseAnyGuid(q.TextView(2), &b.first)) return;
                live.push_back({a, b});
                live.push_back({b, a});
              });
  if (!s.ok()) return s;
  std::sort(live.begin(), live.end());
  std::vector<bool> keep(all.size());  // a node with ports or a forwarding table
  s = EachRow(db, "ports", "SELECT guid, port, lid, state, phys_state, remote_guid, remote_port FROM fabric_ports",
              [&](SqlStmt& q) {
                uint64_t guid = 0;
                if (!ParseAnyGuid(q.TextView(0), &guid)) return;
                auto it = index.find(guid);
                if (it == index.end()) return;
                keep[it->second] = true;
                FabricPort p;
                p.number = static_cast<int>(q.Int(1));
                p.lid = static_cast<uint32_t>(q.OptInt(2).value_or(0));
                p.state = StateOf(q.TextView(3));
                p.phys_state = PhysOf(q.TextView(4));
                uint64_t remote = 0;
                if (!q.IsNull(5) && !q.IsNull(6) && ParseAnyGuid(q.TextView(5), &remote)) {
                  const End me{guid, p.number}, other{remote, static_cast<int>(q.Int(6))};
                  if (std::binary_search(live.begin(), live.end(), std::make_pair(me, other)))
                    p.remote = fabric::RemoteEnd{other.first, other.second};
                }
                all[it->second].ports.push_back(std::move(p));
              });
  if (!s.ok()) return s;
  s = EachRow(db, "forwarding tables", "SELECT guid, lft FROM fabric_lfts", [&](SqlStmt& q) {
    uint64_t guid = 0;
    if (!ParseAnyGuid(q.TextView(0), &guid)) return;
    if (auto it = index.find(guid); it != index.end()) {
      keep[it->second] = true;
      all[it->second].lft = q.Blob(1);
    }
  });
  if (!s.ok()) return s;
  f.nodes.reserve(static_cast<size_t>(std::count(keep.begin(), keep.end(), true)));
  for (size_t i = 0; i < all.size(); ++i) {
    if (!keep[i]) continue;
    std::sort(all[i].ports.begin(), all[i].ports.end(),
              [](const FabricPort& a, const FabricPort& b) { return a.number < b.number; });
    f.nodes.push_back(std::move(all[i]));
  }
  std::sort(f.nodes.begin(), f.nodes.end(), [](const FabricNode& a, const FabricNode& b) { return a.guid < b.guid; });
  return out;
}

// Runs read(db) inside one read transaction, so every table is read as of
// the same commit.
template <typename T>
Result<T> InOneRead(SqlConn& db, Result<T> (*read)(SqlConn&)) {
  // PostgreSQL's default isolation takes a snapshot per statement: one for the whole read.
  const char* begin = db.postgres() ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN";
  if (Status s = db.Exec(begin); !s.ok()) return Result<T>::Error("fabric topology, begin: " + s.message());
  Result<T> out = read(db);
  // The end of the transaction must run even past the deadline (a pooled
  // connection left inside one would read this snapshot for ever): the
  // deadline's handler goes first; the reader still sees the time it took.
  if (Db* lite = db.sqlite()) sqlite3_progress_handler(lite->raw(), 0, nullptr, nullptr);
  if (Status s = db.Exec(out.ok() ? "COMMIT" : "ROLLBACK"); !s.ok() && out.ok())
    return Result<T>::Error("fabric topology, end of the read: " + s.message());
  return out;
}

}  // namespace

bool ParseAnyGuid(std::string_view text, uint64_t* guid) {
  if (text.find(':') == std::string_view::npos) return fabric::ParseGuid(text, guid);
  char hex[16];  // the sysfs form: exactly 16 digits once the colons are gone
  size_t n = 0;
  for (char c : text) {
    if (c == ':') continue;
    if (n == sizeof(hex)) return false;
    hex[n++] = c;
  }
  return n == sizeof(hex) && fabric::ParseGuid(std::string_view(hex, n), guid);
}

Result<FabricTopology> FabricTopologyReader::Topology() {
  return w_.HistoryRun<FabricTopology>([](SqlConn& db) { return InOneRead<FabricTopology>(db, &ReadTopology); });
}

Result<int64_t> FabricTopologyReader::Version() {
  return w_.HistoryRun<int64_t>([](SqlConn& db) { return ReadVersion(db); });
}

Result<std::map<AgentPort, FabricAddress>> FabricTopologyReader::PortAddresses(const std::optional<std::string>& node) {
  using Map = std::map<AgentPort, FabricAddress>;
  return w_.HistoryRun<Map>([&](SqlConn& db) -> Result<Map> {
    auto q = db.Q(
        "SELECT node, device, port, node_guid, lid FROM ports WHERE node_guid IS NOT NULL AND "
        "(CAST(?1 AS TEXT) IS NULL OR node = ?1) AND (link_layer IS NULL OR link_layer = 'InfiniBand') ORDER BY node, device, port");
    if (!q.ok()) return Result<Map>::Error("agents' fabric ports: " + q.status().message());
    q.value()->Bind(1, node);
    Map out;
    for (;;) {
      auto r = q.value()->Step();
      if (!r.ok()) return Result<Map>::Error("agents' fabric ports: " + r.status().message());
      if (!r.value()) break;
      const SqlStmt& s = *q.value();
      FabricAddress a;
      if (!ParseAnyGuid(s.Text(3), &a.node_guid)) continue;
      a.port = static_cast<int>(s.Int(2));
      a.lid = static_cast<uint32_t>(s.OptInt(4).value_or(0));
      out[AgentPort{s.Text(0), s.Text(1), a.port}] = a;
    }
    return out;
  });
}

}  // namespace rdmascope::collector
