// An agent report body parsed once, validated and split for the store.
//
// Contract: DecodeReport parses `body` with simdjson (no DOM allocation per
// value), runs the checks of ValidateReport on it (same fields, same problems,
// same order: the report schema, then the InfiniBand sections) and gives:
//  - probes: every probe as ExtractProbes() gives it, in report order;
//  - report: every other member of the document as nlohmann::json — what the
//    store reads besides the probes, so the bulk of a report (its probes) is
//    never built as a DOM of allocated values.
// Of duplicate keys in an object the first is validated and kept, in both
// outputs. A body that is not JSON is kSyntax with the parser's message; a
// document that breaks the schema is kInvalid with the field (a JSON pointer)
// and the problem. On either, report still holds "node" when the document is
// an object whose node is a string (for the log line), and probes is empty.
// Thread-safe: each thread parses with its own parser, kept for reuse.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/core/probe_input.h"
#include "collector/ingest/report_validate.h"

namespace rdmascope::collector {

struct DecodedReport {
  enum class Problem { kNone, kSyntax, kInvalid };
  Problem problem = Problem::kNone;
  ValidationError error;  // kSyntax: field "" and the parser's message
  nlohmann::json report = nlohmann::json::object();
  std::vector<ProbeInput> probes;
};

DecodedReport DecodeReport(std::string_view body, const ReportLimits& limits = {});

// The probes' intervals moved by a measured clock skew, as ShiftReportTimes
// moves the report's other times (never below 0).
void ShiftProbeTimes(std::vector<ProbeInput>& probes, int64_t skew_ms);

}  // namespace rdmascope::collector
