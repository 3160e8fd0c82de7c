// The dashboard's latency matrix from a read snapshot (contract in
// read_model.cpp): per node, the cells are chosen when the node is
// published (NodeState::SummariseForMatrix), so a request only filters
// them by time and writes them as text.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "collector/readmodel/read_snapshot.h"

namespace rdmascope::collector {

using nlohmann::json;

namespace {

void AppendJsonInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// A double as JSON: shortest round-trip digits, ".0" on whole numbers (as
// the JSON library writes them), null for NaN and infinities.
void AppendJsonReal(std::string* out, double v) {
  if (!std::isfinite(v)) {
    *out += "null";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  const std::string_view digits(buf, static_cast<size_t>(r.ptr - buf));
  out->append(digits);
  if (digits.find_first_of(".e") == std::string_view::npos) *out += ".0";
}

// Orders one node's candidate cells by (dst, transport), by interned
// pointer; within a group the newest interval_end first and, among equals,
// the lowest rail (none first), so the row shown does not depend on hash order.
bool NewerInGroup(const MatrixCell& a, const MatrixCell& b) {
  if (a.dst != b.dst) return a.dst < b.dst;
  if (a.transport != b.transport) return a.transport < b.transport;
  if (a.interval_end != b.interval_end) return a.interval_end > b.interval_end;
  if (a.rail == b.rail) return false;
  if (!a.rail || !b.rail) return !a.rail;
  return *a.rail < *b.rail;
}

// The first cell of each (dst, transport) group of cells sorted by NewerInGroup.
void KeepNewestOfEachGroup(std::vector<MatrixCell>* cells) {
  auto same_group = [](const MatrixCell& a, const MatrixCell& b) {
    return a.dst == b.dst && a.transport == b.transport;
  };
  cells->erase(std::unique(cells->begin(), cells->end(), same_group), cells->end());
}

// The newest run row per (dst, transport) of one node's pairs that pass keep.
template <typename Keep>
std::vector<MatrixCell> NewestCells(const NodeState& n, Keep keep) {
  std::vector<MatrixCell> cells;
  cells.reserve(n.pairs.size());
  for (const auto& [key, e] : n.pairs) {
    const ProbeRow* r = e.newest_run.get();
    if (r && keep(*r)) cells.push_back({r->dst, r->transport, r->rail, r->interval_end, r});
  }
  std::sort(cells.begin(), cells.end(), NewerInGroup);
  KeepNewestOfEachGroup(&cells);
  return cells;
}

// The default start of the matrix's window: three of the longest report
// intervals (at least a minute) before the newest report of any node.
int64_t DefaultSinceMs(const ReadSnapshot::View& v) {
  int64_t newest = 0;
  double longest = 0;
  for (const auto& n : v.nodes) {
    newest = std::max(newest, n->last_generated_at);
    if (n->interval_s) longest = std::max(longest, *n->interval_s);
  }
  return newest - std::max<int64_t>(60000, static_cast<int64_t>(3 * longest * 1000));
}

// The newest run summary per (src, dst, transport) over the rails asked
// for that ended at or after since_ms. Over every rail it is the node's
// cell when that is recent enough (an older row of the pair cannot be);
// one rail is chosen afresh.
std::vector<const ProbeRow*> NewestRowsInWindow(const ReadSnapshot::View& v, int64_t since_ms,
                                                const std::optional<std::string>& rail) {
  std::vector<const ProbeRow*> best;
  for (const auto& n : v.nodes) {
    if (!rail) {
      for (const MatrixCell& c : n->matrix_cells)
        if (c.interval_end >= since_ms) best.push_back(c.row);
      continue;
    }
    for (const MatrixCell& c : NewestCells(*n, [&](const ProbeRow& r) {
           return r.interval_end >= since_ms && r.rail && *r.rail == *rail;
         }))
      best.push_back(c.row);
  }
  return best;
}

// Every node that reported, plus any target that never did, sorted by
// name; a row's src and dst are indexes into that list, found by interned
// pointer. `held` keeps the nodes' names interned while the answer is written.
struct MatrixNames {
  std::vector<const std::string*> names;
  std::vector<InternedName> held;
  std::unordered_map<const std::string*, int> index;
};

MatrixNames NamesOfMatrix(const ReadSnapshot::View& v, const std::vector<const ProbeRow*>& best) {
  MatrixNames m;
  m.names.reserve(v.nodes.size() + 64);
  m.held.reserve(v.nodes.size());
  for (const auto& n : v.nodes) m.names.push_back(m.held.emplace_back(n->name).get());
  for (const ProbeRow* r : best) m.names.push_back(r->dst);  // every src is a node
  std::sort(m.names.begin(), m.names.end());
  m.names.erase(std::unique(m.names.begin(), m.names.end()), m.names.end());
  std::sort(m.names.begin(), m.names.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
  m.index.reserve(m.names.size());
  for (size_t i = 0; i < m.names.size(); ++i) m.index.emplace(m.names[i], static_cast<int>(i));
  return m;
}

// One matrix row: its src and dst as indexes into the names.
struct RankedRow {
  int src, dst;
  const ProbeRow* row;
};

// The rows in (src, dst, transport) name order (index order is name
// order), at most max_rows of them; *truncated says whether any were cut.
std::vector<RankedRow> RankedRows(const std::vector<const ProbeRow*>& best, const MatrixNames& m, int max_rows,
                                  bool* truncated) {
  auto by_name = [](const RankedRow& a, const RankedRow& b) {
    if (a.src != b.src) return a.src < b.src;
    if (a.dst != b.dst) return a.dst < b.dst;
    return *a.row->transport < *b.row->transport;
  };
  std::vector<RankedRow> rows;
  rows.reserve(best.size());
  for (const ProbeRow* r : best) rows.push_back({m.index.at(r->src), m.index.at(r->dst), r});
  std::sort(rows.begin(), rows.end(), by_name);
  *truncated = static_cast<int64_t>(rows.size()) > max_rows;
  if (*truncated) rows.resize(static_cast<size_t>(std::max(max_rows, 0)));
  return rows;
}

// The "nodes" array's objects, one per name, comma-separated: a name with
// no reporting node (v.nodes is sorted by name too) has null fields.
void AppendNodeObjects(std::string* out, const ReadSnapshot::View& v, const std::vector<const std::string*>& names) {
  size_t reported = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const NodeState* n =
        reported < v.nodes.size() && v.nodes[reported]->name == *names[i] ? v.nodes[reported++].get() : nullptr;
    *out += i ? ",{" : "{";
    *out += R"("interval_s":)";
    if (n && n->interval_s) {
      AppendJsonReal(out, *n->interval_s);
    } else {
      *out += "null";
    }
    *out += R"(,"labels":)";
    *out += n && n->labels.is_object() ? n->labels.dump() : "null";
    *out += R"(,"last_generated_at_ms":)";
    if (n) {
      AppendJsonInt(out, n->last_generated_at);
    } else {
      *out += "null";
    }
    *out += R"(,"name":)";
    *out += json(*names[i]).dump();
    *out += '}';
  }
}

// One row's array in the order of the matrix's columns; quoted_transport
// is the row's transport already written as a JSON string.
void AppendRowArray(std::string* out, const RankedRow& ranked, const std::string& quoted_transport) {
  const ProbeRow& r = *ranked.row;
  *out += '[';
  AppendJsonInt(out, ranked.src);
  *out += ',';
  AppendJsonInt(out, ranked.dst);
  *out += ',';
  *out += quoted_transport;
  *out += ',';
  AppendJsonInt(out, r.interval_end);
  for (double x : {r.rtt_p50, r.rtt_p99, r.loss_ratio}) {
    *out += ',';
    AppendJsonReal(out, x);
  }
  *out += ',';
  AppendJsonInt(out, r.error_count);
  *out += ',';
  if (r.errors_by_status == "{}") {
    *out += "{}";
  } else {
    json by_status = json::parse(r.errors_by_status, nullptr, /*allow_exceptions=*/false);
    *out += by_status.is_object() ? by_status.dump() : "{}";
  }
  *out += ']';
}

// The "rows" array's arrays, comma-separated; each distinct transport is
// quoted once per run of equal transports.
void AppendRowArrays(std::string* out, const std::vector<RankedRow>& rows) {
  const std::string* last_transport = nullptr;  // and its JSON string
  std::string quoted_transport;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string* transport = rows[i].row->transport;
    if (transport != last_transport) {
      last_transport = transport;
      quoted_transport = json(*transport).dump();
    }
    if (i) *out += ',';
    AppendRowArray(out, rows[i], quoted_transport);
  }
}

}  // namespace

void NodeState::SummariseForMatrix() {
  matrix_cells = NewestCells(*this, [](const ProbeRow&) { return true; });
}

std::string SnapshotMatrixText(const ReadSnapshot::View& v, int64_t since_ms, int max_rows,
                               const std::optional<std::string>& rail) {
  if (since_ms < 0) since_ms = DefaultSinceMs(v);
  const std::vector<const ProbeRow*> best = NewestRowsInWindow(v, since_ms, rail);
  const MatrixNames m = NamesOfMatrix(v, best);
  bool truncated = false;
  const std::vector<RankedRow> rows = RankedRows(best, m, max_rows, &truncated);

  // Written as text, each object's keys in the order the JSON library
  // sorts them: one JSON value per row would cost more than everything
  // above (80,000 rows at 2,000 nodes x 40 pairs).
  std::string out = R"({"columns":["src","dst","transport","interval_end_ms","rtt_p50_us","rtt_p99_us",)"
                    R"("loss_ratio","error_count","errors_by_status"],"nodes":[)";
  out.reserve(out.size() + m.names.size() * 96 + rows.size() * 64);
  AppendNodeObjects(&out, v, m.names);
  out += R"(],"rows":[)";
  AppendRowArrays(&out, rows);
  out += R"(],"since_ms":)";
  AppendJsonInt(&out, since_ms);
  out += truncated ? R"(,"truncated":true})" : R"(,"truncated":false})";
  return out;
}

}  // namespace rdmascope::collector
