// One page of the fleet's port list, from a read-model view (GET /api/v1/ports
// with paging; the answer's schema is schemas/ports_page.schema.json).
//
// Contract:
//  - Order: by a sort key, then (node, device, port), which is unique, so the
//    order is total. sort=node: (node, device, port); device: (device, node,
//    port); state: (state number, unknown first, then node, device, port);
//    firmware: (firmware, "" unknown first, then node, device, port). Strings
//    compare by bytes. desc reverses the whole order, tiebreak included.
//  - A page holds the first `limit` matching rows strictly after the cursor
//    (from the start without one). next_cursor names the last row of the
//    page when more rows match, else it is absent (JSON null). Pages are
//    keyset pages over the newest view: a row that exists while the pages
//    are read and keeps its sort key is on exactly one page, whatever is
//    ingested between them; a row that appears (or whose sort key moves)
//    lands before or after the cursor by its key. Nothing is held between
//    requests.
//  - total: the rows matching the filter in the same view as the page.
//  - Filters, all given ones must hold: node, device, gid, firmware and q are
//    case-insensitive substrings (q: of any shown field: node, device/port,
//    state and physical state names, GIDs, firmware, link layer, rate text,
//    group); state is exact: a state name (case-insensitive) or number, "!"
//    in front for every other state, unknown included; group is exact.
//  - A port's group: the node's label `group_label` when set, else
//    "leaf:<GUID>" of the switch its own cable goes to, else of the node's
//    leaf switch, else "" (as the pinglists group, per port).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "collector/readmodel/port_cursor.h"
#include "collector/readmodel/read_snapshot.h"

namespace rdmascope::collector {

struct PortFilter {
  // Lower-case substrings; "" matches every row.
  std::string node, device, gid, firmware, q;
  std::optional<std::string> state;  // lower-case name or a number
  bool state_negated = false;
  std::optional<std::string> group;  // exact
};

struct PortPageQuery {
  PortSort sort = PortSort::kNode;
  bool desc = false;
  int limit = 100;
  PortFilter filter;
  std::optional<PortCursor> after;  // its sort and desc equal the query's
  std::string group_label = "group";
  int64_t now_ms = 0, stale_after_ms = 0;  // the node's age and stale flag on each row
};

// {"ports":[...],"total":N,"truncated":bool,"next_cursor":"..."|null,
//  "sort":"node","order":"asc","limit":L}; each row: the ports table's
// columns (gids parsed) plus group, node_last_report_at_ms, node_age_s,
// node_interval_s and node_stale (silent longer than stale_after_ms).
std::string SnapshotPortPage(const ReadSnapshot::View& v, const PortPageQuery& q);

}  // namespace rdmascope::collector
