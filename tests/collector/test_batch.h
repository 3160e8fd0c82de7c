// Group-commit batches (ReportWriter::IngestBatch) for collector tests.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/store/storage.h"

namespace rdmascope::collector::testing {

// One batch item per report, in order, each received at received_at_ms. The
// items point at the reports, which must outlive them.
inline std::vector<ReportWriter::BatchItem> BatchOf(std::initializer_list<const nlohmann::json*> reports,
                                             int64_t received_at_ms) {
  std::vector<ReportWriter::BatchItem> items(reports.size());
  size_t i = 0;
  for (const nlohmann::json* r : reports) {
    items[i].report = r;
    items[i++].received_at_ms = received_at_ms;
  }
  return items;
}

}  // namespace rdmascope::collector::testing
