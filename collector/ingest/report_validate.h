// Validation of an incoming agent report against schemas/report.schema.json
// (the contract of schemas/REPORT_FORMAT.md, version 1).
//
// Contract: ValidateReport checks what the schema states — the version, the
// required fields, types, string lengths and character sets, array and map
// sizes, and that numbers are finite and non-negative where they must be —
// and stops at the first problem, naming the field as a JSON pointer
// ("/probes/0/summary/sent"). Properties the schema does not describe are
// accepted and ignored. A report that passes can be stored without further
// type checks: every field the store reads has the type checked here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

struct ValidationError {
  std::string field;    // JSON pointer; "" is the whole document
  std::string problem;  // "expected a non-negative integer"
};

// Bounds of a report; the same numbers are in report.schema.json.
struct ReportLimits {
  size_t max_devices = 64;
  size_t max_ports_per_device = 64;
  size_t max_gids_per_port = 256;
  size_t max_counters_per_map = 512;
  size_t max_warnings = 256;
  size_t max_labels = 64;
  size_t max_probes = 4096;
  size_t max_errors_per_probe = 1024;
  size_t max_status_keys = 64;
  size_t max_responder_events = 256;
  size_t max_report_losses = 64;
};

std::optional<ValidationError> ValidateReport(const nlohmann::json& report, const ReportLimits& limits = {});

class SimdView;  // simd_view.h
// The same checks on a simdjson document, but for the InfiniBand sections
// (ValidateFabricSections): the report decoder (report_decode.h) checks those
// on the nlohmann form it builds of the rest of the report.
std::optional<ValidationError> ValidateReportExceptFabric(const SimdView& report, const ReportLimits& limits = {});

// Escapes one reference token for a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string JsonPointerToken(std::string_view key);

}  // namespace rdmascope::collector
