// Exactly-once delivery check over agent report ids.
//
// Report ids are "<node>-<generated_at_ms>-<8 hex per agent process>-<seq>"
// (agent/daemon/report_builder.h), seq counting from 1 in each agent process. An
// agent stopped with SIGTERM writes its last report (seq N) to the spool and
// logs its id; every earlier report of that process must then be stored by
// the collector exactly once: the stored ids of the process are seq 1..N-1,
// no gap, no repeat, nothing beyond. "LAST_ID=N" allows exactly N of them
// missing: reports the agent told the collector it lost (reports_lost).
#pragma once

#include <string>
#include <vector>

namespace rdmascope::labcheck {

struct ReportIdParts {
  std::string process;  // "<node>/<8 hex>": one agent process
  long long seq = 0;
};

// False when the id does not have the agent's form.
bool ParseReportId(const std::string& id, ReportIdParts* out);

struct ExactlyOnceResult {
  bool ok = true;
  std::vector<std::string> lines;  // one per process checked, then one per problem
};

// stored: every report id in the collector; last_ids: the id each stopped
// agent process logged as written to the spool at its stop, each with
// "=N" when N of its reports are known lost.
ExactlyOnceResult CheckExactlyOnce(const std::vector<std::string>& stored, const std::vector<std::string>& last_ids);

}  // namespace rdmascope::labcheck
