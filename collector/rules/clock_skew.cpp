#include "collector/rules/clock_skew.h"

#include <algorithm>

#include "collector/core/sat_int.h"
#include "common/http_date.h"

namespace rdmascope::collector {

namespace {

// Member key of obj as an int64_t, when obj is an object holding an integer there.
std::optional<int64_t> IntMember(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (it->is_number_unsigned()) {
    const uint64_t u = it->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (it->is_number_integer()) return it->get<int64_t>();
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> MeasureClockSkew(const nlohmann::json& report, const std::string& date_header,
                                        int64_t now_ms, int64_t tolerance_ms) {
  int64_t agent_ms = 0;
  if (auto date = ParseHttpDate(date_header)) {
    // Date has whole seconds: allow for the truncation before comparing.
    agent_ms = *date + 500;
  } else {
    agent_ms = IntMember(report, "generated_at_ms").value_or(0);
  }
  const int64_t skew = SatSub(agent_ms, now_ms);
  if (skew > tolerance_ms || skew < -tolerance_ms) return skew;
  return std::nullopt;
}

int64_t NewestBodyTimeMs(const nlohmann::json& report, const std::vector<ProbeInput>& probes) {
  int64_t newest = IntMember(report, "generated_at_ms").value_or(INT64_MIN);
  for (const ProbeInput& p : probes) newest = std::max({newest, p.interval_start, p.interval_end});
  return newest;
}

int64_t StoreShiftMs(std::optional<int64_t> clock_skew_ms, int64_t newest_body_ms, int64_t now_ms,
                     int64_t tolerance_ms) {
  const int64_t shift = clock_skew_ms.value_or(0);
  if (newest_body_ms == INT64_MIN) return shift;
  const int64_t ahead = SatSub(SatSub(newest_body_ms, shift), now_ms);
  return ahead > tolerance_ms ? SatAdd(shift, ahead) : shift;
}

namespace {

void Shift(nlohmann::json& obj, const char* key, int64_t skew_ms) {
  auto v = IntMember(obj, key);
  if (!v) return;
  const int64_t moved = SatSub(*v, skew_ms);
  obj[key] = moved < 0 ? 0 : moved;
}

}  // namespace

void ShiftReportTimes(nlohmann::json& report, int64_t skew_ms) {
  Shift(report, "generated_at_ms", skew_ms);
  auto events = report.find("responder_events");
  if (events != report.end() && events->is_array())
    for (auto& e : *events) Shift(e, "at_ms", skew_ms);
  auto losses = report.find("report_losses");
  if (losses != report.end() && losses->is_array())
    for (auto& e : *losses) {
      Shift(e, "first_ms", skew_ms);
      Shift(e, "last_ms", skew_ms);
    }
  auto probes = report.find("probes");
  if (probes == report.end() || !probes->is_array()) return;
  for (auto& p : *probes) {
    Shift(p, "interval_start_ms", skew_ms);
    Shift(p, "interval_end_ms", skew_ms);
  }
}

}  // namespace rdmascope::collector
