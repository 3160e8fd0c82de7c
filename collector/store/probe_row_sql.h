// Probe rows as the store reads them back from probe_summaries.
//
// Contract: ProbeRowFromStmt reads the current row of a statement whose
// SELECT list starts with kProbeRowColumns (the columns of the probes query
// without their API aliases, in this order) into the read model's row,
// interning its names; what ProbeRowFromInput (readmodel) makes from the
// input that row was stored from.
#pragma once

#include <memory>
#include <string>

#include "collector/readmodel/read_snapshot.h"
#include "collector/store/store_db.h"

namespace rdmascope::collector {

extern const char kProbeRowColumns[];
ProbeRow ProbeRowFromStmt(const Stmt& s, const std::shared_ptr<const std::string>& report_id_hint);

}  // namespace rdmascope::collector
