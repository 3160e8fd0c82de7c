// Query rows as JSON objects.
//
// Contract: each column becomes a member named by its SQL name or alias;
// INTEGER, REAL, TEXT and NULL map to JSON integer, number, string and null.
// A column whose name ends in "_json" holds JSON text: it is parsed and the
// suffix dropped. The statement is reset afterwards, whatever happened.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "collector/store/sql_stmt.h"
#include "collector/store/store_db.h"

namespace rdmascope::collector {

Result<nlohmann::json> Rows(SqlStmt& q);

// The same rows written straight as the text of a JSON array (no value per
// row is built: a large list costs about its text): at most `limit` rows,
// *truncated set when the statement had more. A "_json" column's text is
// copied when it is valid JSON, else null.
Result<std::string> RowsText(SqlStmt& q, int64_t limit, bool* truncated);

// For a query run with LIMIT limit + 1: drops the row past `limit` from the
// array *rows and says whether there was one (the answer is cut).
bool TrimToLimit(nlohmann::json* rows, int64_t limit);

}  // namespace rdmascope::collector
