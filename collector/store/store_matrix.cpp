// Store::Matrix: everything the dashboard's latency matrix needs in one
// compact answer (GET /api/v1/matrix).
//
// Contract:
//  - "nodes": every node that reported, plus any probe target that never did,
//    sorted by name: [{"name", "labels" (object or null), "interval_s",
//    "last_generated_at_ms"}].
//  - "rows": the newest summary of each (src, dst, transport) whose newest
//    interval ended at or after since_ms (rails fold into one cell; on a tie
//    the lowest rail), values in "columns" order; src and dst are indexes
//    into "nodes"; absent values are null. Served from the read snapshot
//    (read_snapshot_matrix.cpp): no SQL, no store mutex; the rows are
//    written as JSON text directly (MatrixText), Matrix parses that text.
//  - since_ms < 0 means "the last three report intervals": the newest
//    generated_at of any node minus max(60 s, 3 x the longest interval_s).
//  - At most max_rows rows; "truncated" tells when more matched.
// About 50 bytes a pair, a tenth of /api/v1/probes.
#include "collector/store/store.h"

namespace rdmascope::collector {

Result<std::string> Store::MatrixText(int64_t since_ms, int max_rows, const std::optional<std::string>& rail) {
  return SnapshotMatrixText(snapshot_.Take(), since_ms, max_rows, rail);
}

Result<nlohmann::json> Store::Matrix(int64_t since_ms, int max_rows, const std::optional<std::string>& rail) {
  auto text = MatrixText(since_ms, max_rows, rail);
  if (!text.ok()) return text.status();
  nlohmann::json m = nlohmann::json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (m.is_discarded()) return Status::Error("the matrix answer is not valid JSON (a bug in SnapshotMatrixText)");
  return m;
}

}  // namespace rdmascope::collector
