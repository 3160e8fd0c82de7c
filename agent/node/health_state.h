// What `rdmactl health --state-file` keeps from one run for the next: the
// counter values, the boot id and each device's instance identity, so the
// next run judges increases by the counter rules (common/counter_rules.h).
//
// Contract: the file is text, one "KEY VALUE" per line: "DEV/PORT/NAME N"
// for each counter present (counters and hw_counters; absent ones are not
// written), then "@boot_id ID" and "@instance/DEV ID" when known. The
// counters come first, so a reader of the older format (counter lines only,
// read until the first line that is not one) still reads all of them. A
// file without the @ lines (the older format) parses, with boot id and
// instances unknown. Unknown @ keys are ignored; any other line that is not
// "KEY N" (N an unsigned 64-bit number) is an error naming the line.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/model.h"
#include "common/status.h"

namespace rdmascope {

struct HealthState {
  std::string boot_id;                           // "" = unknown
  std::map<std::string, std::string> instances;  // device name -> Device::instance
  std::map<std::string, uint64_t> counters;      // "DEV/PORT/NAME" -> value
};

// "DEV/PORT/NAME", the key of a counter in HealthState::counters.
std::string HealthCounterKey(const std::string& device, int port, const std::string& name);

// The state of `inv` (its present counters and devices' instances) on the boot `boot_id`.
HealthState HealthStateOf(const Inventory& inv, const std::string& boot_id);

std::string FormatHealthState(const HealthState& state);
Result<HealthState> ParseHealthState(const std::string& text);

// The host's boot id (first line of `path`, trailing space removed, at most
// 64 bytes); "" when unreadable.
std::string ReadHostBootId(const std::string& path = "/proc/sys/kernel/random/boot_id");

}  // namespace rdmascope
