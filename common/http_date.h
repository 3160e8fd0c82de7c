#pragma once
// HTTP dates (IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT"), whole seconds.
// The agent stamps each report POST with one; the collector compares it with
// its own clock (collector/clock_skew.h).
#include <cstdint>
#include <optional>
#include <string>

namespace rdmascope {

// ms since the epoch; nullopt when the text is not an IMF-fixdate.
std::optional<int64_t> ParseHttpDate(const std::string& text);

std::string FormatHttpDate(int64_t ms_since_epoch);

// FormatHttpDate of the system clock now.
std::string HttpDateNow();

// ISO 8601 in UTC, whole seconds ("1994-11-06T08:49:37Z"), for log lines and
// tables. Safe from any thread (gmtime_r).
std::string FormatUtcTimestamp(int64_t ms_since_epoch);

}  // namespace rdmascope
