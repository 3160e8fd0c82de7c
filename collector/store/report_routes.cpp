// The writer's forwarding tables and the fabric's topology version (inside
// the report's transaction).
//
// Contract:
//  - A sweep node's "lft" (a switch's LinearForwardingTable, validated by
//    collector/ingest/fabric_validate.h) is kept in fabric_lfts, one BLOB
//    byte per destination LID. It is written only when it differs from the
//    table stored, and never over a table stored by a newer sweep; a sweep
//    without "lft" for a switch leaves its stored table alone. Any table
//    written changes the topology version.
//  - The version (fabric_topology_version) is bumped once per report whose
//    sweep changed what a trace reads: a node's type or LID, a port's LID,
//    state or remote end, a link gone or back, a forwarding table
//    (topology_changed_, set by report_fabric.cpp and here).
#include <vector>

#include "collector/core/json_get.h"
#include "collector/store/report_writer.h"
#include "collector/store/store_status_macros.h"

namespace rdmascope::collector {

using json = nlohmann::json;

Status ReportWriter::IngestLft(const std::string& guid, const json& lft, const std::string& seen_by, int64_t at) {
  RETURN_IF_ERROR(Fault("lft"));
  std::vector<uint8_t> table;
  table.reserve(lft.size());
  for (const json& v : lft) table.push_back(static_cast<uint8_t>(v.get<uint64_t>()));  // 0..255, validated
  {
    ASSIGN_STMT(q, Q("SELECT lft, swept_at FROM fabric_lfts WHERE guid = ?1"));
    q.Bind(1, guid);
    auto row = q.Step();
    if (!row.ok()) return row.status();
    const bool keep = row.value() && (q.Int(1) > at || q.Blob(0) == table);
    q.Reset();
    if (keep) return Status::Ok();  // the same table, or one from a newer sweep
  }
  ASSIGN_STMT(up, Q("INSERT INTO fabric_lfts(guid, lft, swept_at, seen_by) VALUES (?1, ?2, ?3, ?4) "
                    "ON CONFLICT(guid) DO UPDATE SET lft = excluded.lft, swept_at = excluded.swept_at, "
                    "seen_by = excluded.seen_by"));
  up.Bind(1, guid).BindBlob(2, table).Bind(3, at).Bind(4, seen_by);
  RETURN_IF_ERROR(up.Run());
  topology_changed_ = true;
  return Status::Ok();
}

Status ReportWriter::BumpTopologyVersion() {
  ASSIGN_STMT(up, Q("UPDATE fabric_topology_version SET version = version + 1 WHERE id = 1"));
  return up.Run();
}

}  // namespace rdmascope::collector
