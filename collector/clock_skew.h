#pragma once
// Agent clocks are not trusted beyond a tolerance.
//
// Contract: MeasureClockSkew returns how far the agent's clock is ahead of
// the collector's (negative: behind) when that exceeds tolerance_ms, else
// nullopt. The agent's clock is read from the request's HTTP `Date` header
// when it carries one (so a spooled report replayed after an outage is not
// mistaken for skew: its generated_at is old but its Date is current), else
// from the report's generated_at_ms.
//
// A skew beyond a second, larger bound (ApiOptions::clock_skew_refuse_ms) is
// not repaired but refused: such a clock is broken, not drifting.
//
// ShiftReportTimes moves every agent timestamp in a validated report
// (generated_at_ms, each probe's interval_start_ms/interval_end_ms) by
// -skew_ms, clamped at 0, so a skewed report is stored on the collector's
// clock and cannot freeze "newest" rows with a future time.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

inline constexpr int64_t kDefaultClockSkewToleranceMs = 5 * 60 * 1000;

std::optional<int64_t> MeasureClockSkew(const nlohmann::json& report, const std::string& date_header,
                                        int64_t now_ms, int64_t tolerance_ms);

void ShiftReportTimes(nlohmann::json& report, int64_t skew_ms);

}  // namespace rdmascope::collector
