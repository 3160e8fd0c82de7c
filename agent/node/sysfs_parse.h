// Parsers for the text formats of /sys/class/infiniband attributes.
//
// Contract: each parser is strict and returns nullopt for text that is not in
// the kernel's format (the caller turns that into a warning naming the file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/model.h"

namespace rdmascope {

// "4: ACTIVE" -> {4, "ACTIVE"}; "5: LinkUp" -> {5, "LinkUp"}.
std::optional<NumberedName> ParseNumberedName(std::string_view text);

// "0x1a" or "26" -> 26. Rejects signs, garbage, values above UINT32_MAX.
std::optional<uint32_t> ParseU32(std::string_view text);

// Decimal counter value "12345" -> 12345. Rejects signs, garbage, overflow.
std::optional<uint64_t> ParseU64(std::string_view text);

// "100 Gb/sec (4X EDR)" -> {100, "4X", "EDR"}. Older kernels omit the speed
// name for SDR ("10 Gb/sec (4X)"), which parses as speed "SDR"; newer ones
// write "(4X SDR)".
std::optional<Rate> ParseRate(std::string_view text);

// True for a GID in sysfs form: eight groups of four hex digits separated by ':'.
bool IsWellFormedGid(std::string_view text);
bool IsZeroGid(std::string_view text);

// The counter value the kernel writes when a port has no PMA.
constexpr std::string_view kNoPmaText = "N/A (no PMA)";

}  // namespace rdmascope
