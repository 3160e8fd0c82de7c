// A faster way than one INSERT per row to store the probe rows of a write
// transaction, for an engine that has one (PostgreSQL's COPY:
// pg_probe_copy.h). Without one, the writer inserts each row.
//
// Contract: Store(conn, rows) stores every row of `rows` (the probe rows the
// open transaction wrote, in order) inside that transaction on conn, the
// writer's connection, under the writer's lock: all or none; an error names
// what failed. The rows are the read model's (ProbeRow), as the per-row
// INSERT would have stored them.
#pragma once

#include <memory>
#include <vector>

#include "collector/readmodel/read_snapshot.h"
#include "collector/store/sql_conn.h"
#include "common/status.h"

namespace rdmascope::collector {

class ProbeRowBulk {
 public:
  virtual ~ProbeRowBulk() = default;
  virtual Status Store(SqlConn& conn, const std::vector<std::shared_ptr<const ProbeRow>>& rows) = 0;
};

}  // namespace rdmascope::collector
