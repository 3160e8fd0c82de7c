#include "collector/ingest/report_decode.h"

#include <algorithm>
#include <cstdint>

#include "collector/ingest/fabric_validate.h"
#include "collector/core/sat_int.h"
#include "collector/core/simd_view.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;

// A simdjson value as nlohmann::json, numbers typed as nlohmann's parser
// types them (an integer >= 0 unsigned); of duplicate keys the first stays.
json ToJson(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      json a = json::array();
      simdjson::dom::array in;
      if (e.get(in) == simdjson::SUCCESS)
        for (simdjson::dom::element x : in) a.push_back(ToJson(x));
      return a;
    }
    case simdjson::dom::element_type::OBJECT: {
      json o = json::object();
      simdjson::dom::object in;
      if (e.get(in) == simdjson::SUCCESS)
        for (simdjson::dom::key_value_pair kv : in)
          o.emplace(std::string(kv.key), ToJson(kv.value));  // emplace keeps an existing key
      return o;
    }
    case simdjson::dom::element_type::INT64: {
      int64_t v = 0;
      if (e.get(v) != simdjson::SUCCESS) return json(nullptr);
      return v >= 0 ? json(static_cast<uint64_t>(v)) : json(v);
    }
    case simdjson::dom::element_type::UINT64: {
      uint64_t v = 0;
      if (e.get(v) != simdjson::SUCCESS) return json(nullptr);
      return json(v);
    }
    case simdjson::dom::element_type::DOUBLE: {
      double v = 0;
      if (e.get(v) != simdjson::SUCCESS) return json(nullptr);
      return json(v);
    }
    case simdjson::dom::element_type::STRING: {
      std::string_view v;
      if (e.get(v) != simdjson::SUCCESS) return json(nullptr);
      return json(std::string(v));
    }
    case simdjson::dom::element_type::BOOL: {
      bool v = false;
      if (e.get(v) != simdjson::SUCCESS) return json(nullptr);
      return json(v);
    }
    case simdjson::dom::element_type::NULL_VALUE: return json(nullptr);
  }
  return json(nullptr);
}

simdjson::dom::parser& ThreadParser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// A worker's parser keeps the capacity of the largest report it parsed (about
// ten times the body). Past this, it is given back after the report, so that
// one burst of large reports does not stay in every worker's memory; a
// fleet's reports (about 160 kB at 320 probes) stay under it and reuse theirs.
constexpr size_t kKeptParserCapacity = 1 << 20;

struct ShrinkParserOnExit {
  ~ShrinkParserOnExit() {
    if (ThreadParser().capacity() > kKeptParserCapacity) ThreadParser() = simdjson::dom::parser();
  }
};

}  // namespace

DecodedReport DecodeReport(std::string_view body, const ReportLimits& limits) {
  DecodedReport out;
  const ShrinkParserOnExit shrink;  // after every use of the document below
  simdjson::dom::element doc;
  // parse() copies the body into the parser's padded buffer.
  if (auto err = ThreadParser().parse(body.data(), body.size()).get(doc); err != simdjson::SUCCESS) {
    out.problem = DecodedReport::Problem::kSyntax;
    out.error = ValidationError{"", simdjson::error_message(err)};
    return out;
  }
  const SimdView root(doc);
  if (const SimdView node = root.member("node"); node.kind() == JsonKind::kString)
    out.report["node"] = std::string(node.str());
  if (auto bad = ValidateReportExceptFabric(root, limits)) {
    out.problem = DecodedReport::Problem::kInvalid;
    out.error = *bad;
    return out;
  }
  simdjson::dom::object top;
  if (doc.get(top) == simdjson::SUCCESS)  // an object: validation checked
    for (simdjson::dom::key_value_pair kv : top)
      if (kv.key != "probes") out.report.emplace(std::string(kv.key), ToJson(kv.value));
  if (auto bad = ValidateFabricSections(out.report)) {
    out.problem = DecodedReport::Problem::kInvalid;
    out.error = *bad;
    return out;
  }
  out.probes = ExtractProbesOfSimd(root);
  return out;
}

void ShiftProbeTimes(std::vector<ProbeInput>& probes, int64_t skew_ms) {
  for (ProbeInput& p : probes) {
    p.interval_start = std::max<int64_t>(0, SatSub(p.interval_start, skew_ms));
    p.interval_end = std::max<int64_t>(0, SatSub(p.interval_end, skew_ms));
  }
}

}  // namespace rdmascope::collector
