// libFuzzer harness: an agent report as the collector receives it — nesting
// guard, JSON parse, validation, clock repair, ingest into an in-memory store —
// under ASan/UBSan. Any crash, sanitizer report or leak is a finding; a
// rejected input is the expected outcome for most inputs.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "collector/clock_skew.h"
#include "collector/report_validate.h"
#include "collector/request_guard.h"
#include "collector/store.h"

namespace {

using rdmascope::collector::Store;

Store& TheStore() {
  static std::unique_ptr<Store> store = [] {
    rdmascope::collector::StoreOptions o;
    o.path = ":memory:";
    auto s = Store::Open(o);
    if (!s.ok()) __builtin_trap();
    return std::move(s).value();
  }();
  return *store;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  if (rdmascope::collector::JsonNestingExceeds(body, 32)) return 0;
  nlohmann::json report = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded()) return 0;
  if (rdmascope::collector::ValidateReport(report)) return 0;
  const int64_t now = 1'800'000'000'000;
  auto skew = rdmascope::collector::MeasureClockSkew(report, "", now, 5 * 60 * 1000);
  if (skew) {
    if (*skew > 86'400'000 || *skew < -86'400'000) return 0;
    rdmascope::collector::ShiftReportTimes(report, *skew);
  }
  auto stored = TheStore().Ingest(report, now, skew);
  (void)stored;  // a store error is an answer (500), not a finding
  return 0;
}
