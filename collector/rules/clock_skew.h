#pragma once
// Agent clocks are not trusted beyond a tolerance, and no body time is
// stored in the future whatever the headers say.
//
// Contract: MeasureClockSkew returns how far the agent's clock is ahead of
// the collector's (negative: behind) when that exceeds tolerance_ms, else
// nullopt. The agent's clock is read from the request's HTTP `Date` header
// when it carries one (so a spooled report replayed after an outage is not
// mistaken for skew: its generated_at is old but its Date is current), else
// from the report's generated_at_ms (absent or not an integer: 0, i.e. far
// behind).
//
// A skew beyond a second, larger bound (ApiOptions::clock_skew_refuse_ms) is
// not repaired but refused: such a clock is broken, not drifting.
//
// The Date header vouches for the agent's clock, not for the body: a body
// time ahead of the collector's clock cannot come from a replay. StoreShiftMs
// gives the shift the body is stored with: the measured clock skew (0 when
// within tolerance), grown so that the newest body time, once shifted, is not
// ahead of now by more than tolerance_ms (it then lands at now). A non-zero
// shift opens the node's clock_skew event with that value; a body ahead is
// stored at receive time, never refused for it (the Date was sane).
// NewestBodyTimeMs is the largest of generated_at_ms and every probe's
// interval_start/interval_end (INT64_MIN when there is none).
//
// ShiftReportTimes moves every agent timestamp in a validated report
// (generated_at_ms, each probe's interval_start_ms/interval_end_ms, each
// responder event's at_ms, each report loss's first_ms/last_ms) by
// -skew_ms, clamped at 0, so a skewed report is stored on the collector's
// clock and cannot freeze "newest" rows with a future time.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/core/probe_input.h"

namespace rdmascope::collector {

inline constexpr int64_t kDefaultClockSkewToleranceMs = 5 * 60 * 1000;

std::optional<int64_t> MeasureClockSkew(const nlohmann::json& report, const std::string& date_header,
                                        int64_t now_ms, int64_t tolerance_ms);

int64_t NewestBodyTimeMs(const nlohmann::json& report, const std::vector<ProbeInput>& probes);

int64_t StoreShiftMs(std::optional<int64_t> clock_skew_ms, int64_t newest_body_ms, int64_t now_ms,
                     int64_t tolerance_ms);

void ShiftReportTimes(nlohmann::json& report, int64_t skew_ms);

}  // namespace rdmascope::collector
