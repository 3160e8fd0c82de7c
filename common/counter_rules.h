// The one place that turns two readings of a port counter into a delta and a
// rate: per-counter width, saturation, wrap and reset.
//
// Contract:
// - Width table: the PortCounters widths of common/ib_encoding.h (error
//   counters *saturate* at their maximum; port_xmit_wait and the legacy
//   data/packet counters *wrap*; the legacy data counters in bytes wrap 2 bits
//   later), 64 bits for extended and hw_counters (unless listed). A value
//   above the table's maximum means the source is wider (the kernel read the
//   extended counter): it is treated as 64-bit.
// - Absent current value: kAbsent, no delta (absent is not 0). No previous
//   value (or an absent one): kFirst, no delta.
// - A different non-empty boot id, or a different non-empty device instance
//   identity (the device was re-created: driver reload, delete and add;
//   agent/node/counters.h says what it is made of): kReset, delta = the
//   current value (all of it is new since the reboot or re-creation), whether
//   the value went backwards or not and whatever the width. An unknown ("")
//   boot id or instance on either side decides nothing: the value rules below
//   do. Only the instance tells a reset from a wrap when a counter the table
//   calls 32-bit is in fact read from its 64-bit extended counter and was
//   still under 2^32: without it a backwards step there is taken for a wrap.
// - A saturating counter at its maximum is `saturated` (whatever the kind);
//   a backwards step on it is kReset (it was cleared): delta = current value.
// - A backwards step on a wrapping counter narrower than 64 bits is kWrapped,
//   delta = (cur - prev) modulo 2^width; on a 64-bit counter it is kReset.
// - per_second: delta / elapsed seconds when both times are known and apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/ib_encoding.h"

namespace rdmascope {

enum class CounterOverflow { kSaturates, kWraps };

struct CounterWidth {
  int bits = 64;
  CounterOverflow overflow = CounterOverflow::kWraps;
  uint64_t max() const { return ib::CounterMax(bits); }
};

// kind: "counters" (PMA, sysfs counters/) or "hw_counters".
CounterWidth CounterWidthOf(const std::string& kind, const std::string& name);

struct CounterReading {
  std::optional<uint64_t> value;
  std::string boot_id;  // "" = unknown
  int64_t at_ms = 0;
  std::string instance = {};  // the device's instance identity; "" = unknown
};

enum class DeltaKind { kDelta, kWrapped, kReset, kFirst, kAbsent };

struct CounterDelta {
  DeltaKind kind = DeltaKind::kAbsent;
  std::optional<uint64_t> delta;
  std::optional<double> per_second;
  bool saturated = false;  // the current value sits at a saturating counter's maximum
};

CounterDelta ComputeCounterDelta(const std::string& kind, const std::string& name,
                                 const std::optional<CounterReading>& previous, const CounterReading& current);

const char* DeltaKindName(DeltaKind k);  // "delta", "wrapped", "reset", "first", "absent"

}  // namespace rdmascope
