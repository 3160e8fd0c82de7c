// Probe summaries into PostgreSQL by COPY: the bulk of every report (one row
// per target, rail and transport), sent as one COPY per batch instead of a
// statement per row.
//
// Contract:
//  - AppendProbeRow adds one probe_summaries row to *rows: the columns of
//    kProbeRowColumns, in that order, from the read model's row (what the
//    SQLite writer stores for it: a NaN real and a kNullInt integer are NULL).
//  - CopyProbeRows sends every row of `rows` in one COPY (one statement:
//    all stored or none) and returns how many were stored; inside the
//    caller's transaction when one is open. Read back through ProbeRowFrom
//    (probe_row_sql.h) with a PgStmt, each row equals the one appended.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collector/readmodel/read_snapshot.h"
#include "collector/store/pg_db.h"

namespace rdmascope::collector {

void AppendProbeRow(const ProbeRow& r, CopyRows* rows);
// "COPY probe_summaries (kProbeRowColumns) FROM STDIN".
const std::string& ProbeCopySql();
Result<int64_t> CopyProbeRows(PgDb& db, const CopyRows& rows);

}  // namespace rdmascope::collector
