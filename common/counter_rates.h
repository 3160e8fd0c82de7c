// Per-second rates along a list of counter samples, as the collector serves
// them (GET /api/v1/counters?rates=1) and the dashboard plots them.
//
// Contract:
// - samples: a JSON array of objects {node, device, port, kind, name, value,
//   sampled_at_ms, boot_id?, instance?} in time order (value an unsigned
//   integer or null; boot_id and instance, the device's instance identity, a
//   string or null/missing when unknown). A series is one (node, device, port,
//   kind, name); each sample's previous reading is the one before it in the
//   same series within the list.
// - Each sample gets "rate": the delta of common/counter_rules.h (width,
//   saturation, wrap, reset by boot id or device instance) per second since
//   the previous reading, or null (first of its series, absent value, no time
//   elapsed). Counters in 4-byte words (common/ib_encoding.h) are rated in
//   bytes.
// - And "rate_unit": "bytes/s" for those word counters, "/s" for the others.
#pragma once

#include <nlohmann/json.hpp>

namespace rdmascope {

void AddCounterRates(nlohmann::json& samples);

}  // namespace rdmascope
