// Builds the agent report, version 1 (schemas/REPORT_FORMAT.md).
//
// Contract: BuildReport writes every top-level key of the format. The
// inventory's devices are DeviceToJson (what `rdmactl ports --json` prints)
// with each port's "counters" and "hw_counters" maps added; absent values are
// null. Probe entries are the probe engine's per-target summaries, already in
// the format's shape; they are passed through unchanged, except that an entry
// that is not a JSON object is left out and named in inventory.warnings.
// The report stays within the collector's bounds (schemas/report.schema.json):
// at most kMaxReportWarnings warnings of at most kMaxWarningChars bytes (the
// excess is replaced by one warning saying how many were left out) and at
// most kMaxReportProbes probe entries (the rest left out, with a warning).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/model.h"

namespace rdmascope::agent {

constexpr int kReportSchemaVersion = 1;
constexpr size_t kMaxReportWarnings = 256;
constexpr size_t kMaxWarningChars = 1024;
constexpr size_t kMaxReportProbes = 4096;

// The agent's version (the project version at build time).
extern const char kAgentVersion[];

struct ReportHeader {
  std::string node;
  int64_t interval_ms = 10000;  // written as interval_s (seconds, fractional when not whole)
  std::map<std::string, std::string> labels;
  std::string boot_id;  // written as boot_id; "" = null (unknown)
  // Written as "rails" when not null: the agent's rails and their state.
  nlohmann::json rails;
  // Reports the spool dropped (full, or too old) since the last delivered report.
  uint64_t spool_dropped = 0;
};


// Report ids "<node>-<generated_at_ms>-<8 hex random per generator>-<seq>",
// seq counting from 1 and zero-padded to 6 digits. Unique across restarts of
// the same node by the random part, within a process by the sequence. The
// node part is shortened when needed so that an id is at most 128 characters.
class ReportIdGenerator {
 public:
  explicit ReportIdGenerator(std::string node);  // random part from std::random_device
  ReportIdGenerator(std::string node, uint32_t random_part);
  std::string Next(int64_t generated_at_ms);

 private:
  std::string node_;
  std::string random_hex_;
  uint64_t seq_ = 0;
};

// 1..128 characters of [A-Za-z0-9._:-].
bool IsValidReportId(const std::string& id);

// {"devices": [device + "instance" + per port counters/hw_counters],
// "warnings": [...]}: "instance" is Device::instance (null when unknown), so
// the collector tells a re-created device's reset from a wrap.
nlohmann::json ReportInventoryJson(const Inventory& inv);

nlohmann::json BuildReport(const ReportHeader& header, const std::string& report_id, int64_t generated_at_ms,
                           const Inventory& inv, const std::vector<nlohmann::json>& probes);

// Compact JSON text. Never throws: invalid UTF-8 in strings is replaced by U+FFFD.
std::string SerializeReport(const nlohmann::json& report);

}  // namespace rdmascope::agent
