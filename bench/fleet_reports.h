// The fleet's reports: one text template per node, built once from the
// tests' synthetic report with R rails x T targets x 2 transports of probe
// summaries, and filled in for each round with what changes (report id,
// generated_at, the probe interval), so a round costs string joins, not JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/fleet_args.h"

namespace rdmascope::collector::bench {

// The placeholder report id a template is built with (its size is a real one's).
constexpr char kTemplateReportId[] = "@@REPORT_ID@@";

std::string NodeName(int i);

// A node's report as text with holes for what changes each round: the
// report id, generated_at and each probe interval's start and end.
struct ReportTemplate {
  std::vector<std::string> parts;  // text between holes
  std::vector<char> holes;         // 'I' id, 'G' generated_at, 'S' start, 'E' end
  std::string Fill(const std::string& id, int64_t generated, int64_t start, int64_t end) const;
};

// Node `node`'s template: a group label per 40 nodes, rails 0..R-1, and
// probes to T targets spread over the fleet on every rail, RC and UD.
ReportTemplate MakeReportTemplate(int node, const FleetArgs& a);

// A report id shaped as an agent makes it (NODE-GENERATED_MS-BOOT_HEX-SEQ), so
// the ids cost in the database what real ones do.
std::string ReportId(int node, int round, int64_t generated_ms);

}  // namespace rdmascope::collector::bench
