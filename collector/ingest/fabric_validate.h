// Validation of a report's InfiniBand sections: "neighbours" (every agent on
// an IB port) and "fabric" (agents with a sweep interval), in the shapes of
// fabric/fabric_json.h and fabric/neighbour.h (schemas/REPORT_FORMAT.md).
//
// Contract: like ValidateReport (which calls this), stops at the first
// problem and names it by JSON pointer; both sections are optional. A sweep
// node's "lft" (optional) is a switch's forwarding table: an array of at
// most max_lft_entries integers 0..255, only on a node of type "Switch". A report
// that passes can be stored by ReportWriter::IngestFabric without further checks.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "collector/ingest/report_validate.h"

namespace rdmascope::collector {

struct FabricLimits {
  size_t max_nodes = 20000;
  size_t max_ports_per_node = 255;
  size_t max_counters = 64;
  size_t max_neighbours = 256;
  size_t max_text = 256;
  size_t max_lft_entries = 0xc000;  // a switch's forwarding table: one entry per unicast LID 0..0xbfff
};

std::optional<ValidationError> ValidateFabricSections(const nlohmann::json& report, const FabricLimits& limits = {});

// "0x" + 16 lowercase or uppercase hex digits.
bool IsGuidText(const nlohmann::json& v);

}  // namespace rdmascope::collector
