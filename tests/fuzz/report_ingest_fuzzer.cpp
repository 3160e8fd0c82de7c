// libFuzzer harness: an agent report as the collector receives it — nesting
// guard, the report decoder (simdjson parse, validation, probe extraction),
// clock repair, ingest into an in-memory store — under ASan/UBSan with
// assertions on. The seeds include fabric sweeps and neighbours. Any crash,
// sanitizer report or leak is a finding; a rejected input is the expected
// outcome for most inputs. The nlohmann path (json::parse + ValidateReport)
// must accept exactly the documents the decoder accepts: a disagreement traps.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/rules/clock_skew.h"
#include "collector/ingest/report_decode.h"
#include "collector/ingest/report_validate.h"
#include "collector/http/request_guard.h"
#include "collector/store/storage.h"

// The package build has no NDEBUG, so its assertions (the JSON library's
// JSON_ASSERT among them: operator[] on a const object for an absent key)
// abort the daemon; the fuzzers must see the same aborts.
#ifdef NDEBUG
#error "the fuzzers need assertions on: build without NDEBUG (RDMASCOPE_SANITIZE does)"
#endif

namespace {

using rdmascope::collector::ReportWriter;
using rdmascope::collector::Storage;

Storage& TheStore() {
  static std::unique_ptr<Storage> store = [] {
    rdmascope::collector::StoreOptions o;
    o.path = ":memory:";
    auto s = Storage::Open(o);
    if (!s.ok()) __builtin_trap();
    return std::move(s).value();
  }();
  return *store;
}

// Every key of every object in `j`.
size_t KeysIn(const nlohmann::json& j) {
  size_t n = j.is_object() ? j.size() : 0;
  if (j.is_structured())
    for (const auto& v : j) n += KeysIn(v);
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  if (rdmascope::collector::JsonNestingExceeds(body, 32)) return 0;
  rdmascope::collector::DecodedReport decoded = rdmascope::collector::DecodeReport(body);
  if (decoded.problem == rdmascope::collector::DecodedReport::Problem::kSyntax) return 0;
  // Duplicate keys are kept differently (the first here, the last by nlohmann):
  // compare the two paths only on documents without them.
  size_t keys_parsed = 0;
  const nlohmann::json dom = nlohmann::json::parse(
      body,
      [&keys_parsed](int, nlohmann::json::parse_event_t event, nlohmann::json&) {
        if (event == nlohmann::json::parse_event_t::key) ++keys_parsed;
        return true;
      },
      /*allow_exceptions=*/false);
  if (!dom.is_discarded() && KeysIn(dom) == keys_parsed) {
    const bool dom_ok = !rdmascope::collector::ValidateReport(dom).has_value();
    const bool decoded_ok = decoded.problem == rdmascope::collector::DecodedReport::Problem::kNone;
    if (dom_ok != decoded_ok) __builtin_trap();
  }
  if (decoded.problem != rdmascope::collector::DecodedReport::Problem::kNone) return 0;
  const int64_t now = 1'800'000'000'000;
  auto skew = rdmascope::collector::MeasureClockSkew(decoded.report, "", now, 5 * 60 * 1000);
  if (skew) {
    if (*skew > 86'400'000 || *skew < -86'400'000) return 0;
    rdmascope::collector::ShiftReportTimes(decoded.report, *skew);
    rdmascope::collector::ShiftProbeTimes(decoded.probes, *skew);
  }
  std::vector<ReportWriter::BatchItem> batch(1);
  batch[0].report = &decoded.report;
  batch[0].probes = &decoded.probes;
  batch[0].received_at_ms = now;
  batch[0].clock_skew_ms = skew;
  TheStore().writer.IngestBatch(batch);  // a store error is an answer (500), not a finding
  return 0;
}
