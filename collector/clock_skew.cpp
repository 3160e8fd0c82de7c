#include "collector/clock_skew.h"

#include "common/http_date.h"

namespace rdmascope::collector {

std::optional<int64_t> MeasureClockSkew(const nlohmann::json& report, const std::string& date_header,
                                        int64_t now_ms, int64_t tolerance_ms) {
  int64_t agent_ms = 0;
  if (auto date = ParseHttpDate(date_header)) {
    // Date has whole seconds: allow for the truncation before comparing.
    agent_ms = *date + 500;
  } else {
    agent_ms = report["generated_at_ms"].get<int64_t>();
  }
  int64_t skew = agent_ms - now_ms;
  if (skew > tolerance_ms || skew < -tolerance_ms) return skew;
  return std::nullopt;
}

namespace {

void Shift(nlohmann::json& obj, const char* key, int64_t skew_ms) {
  if (!obj.is_object()) return;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return;
  int64_t v = it->get<int64_t>() - skew_ms;
  *it = v < 0 ? 0 : v;
}

}  // namespace

void ShiftReportTimes(nlohmann::json& report, int64_t skew_ms) {
  Shift(report, "generated_at_ms", skew_ms);
  auto probes = report.find("probes");
  if (probes == report.end() || !probes->is_array()) return;
  for (auto& p : *probes) {
    Shift(p, "interval_start_ms", skew_ms);
    Shift(p, "interval_end_ms", skew_ms);
  }
}

}  // namespace rdmascope::collector
