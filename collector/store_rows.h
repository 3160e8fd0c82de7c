// Query rows as JSON objects.
//
// Contract: each column becomes a member named by its SQL name or alias;
// INTEGER, REAL, TEXT and NULL map to JSON integer, number, string and null.
// A column whose name ends in "_json" holds JSON text: it is parsed and the
// suffix dropped. The statement is reset afterwards, whatever happened.
#pragma once

#include <nlohmann/json.hpp>

#include "collector/store_db.h"

namespace rdmascope::collector {

Result<nlohmann::json> Rows(Stmt& q);

}  // namespace rdmascope::collector
