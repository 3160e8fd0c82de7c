#include "common/counter_rules.h"

#include <map>

#include "common/ib_encoding.h"

namespace rdmascope {
namespace {

// sysfs counters/ names -> IBA PortCounters widths (error counters saturate),
// plus the bytes names of the legacy data counters (words * 4: 2 more bits).
std::map<std::string, CounterWidth> BuildPmaTable() {
  std::map<std::string, CounterWidth> t;
  for (const ib::PortCounterField& f : ib::kPortCounters)
    t[std::string(f.name)] = {f.bits, f.saturates ? CounterOverflow::kSaturates : CounterOverflow::kWraps};
  for (const ib::DataWordCounter& c : ib::kDataWordCounters)
    t[std::string(c.bytes)] = {ib::PortCounterOf(c.words)->bits + ib::kDataWordBytesLog2, CounterOverflow::kWraps};
  return t;
}

const std::map<std::string, CounterWidth>& PmaTable() {
  static const std::map<std::string, CounterWidth> t = BuildPmaTable();
  return t;
}

}  // namespace

CounterWidth CounterWidthOf(const std::string& kind, const std::string& name) {
  if (kind == "counters") {
    auto it = PmaTable().find(name);
    if (it != PmaTable().end()) return it->second;
  }
  return CounterWidth{};  // extended PMA counters and hw_counters: 64-bit
}

CounterDelta ComputeCounterDelta(const std::string& kind, const std::string& name,
                                 const std::optional<CounterReading>& previous, const CounterReading& current) {
  CounterDelta d;
  if (!current.value) return d;  // kAbsent
  CounterWidth w = CounterWidthOf(kind, name);
  const uint64_t cur = *current.value;
  const bool has_prev = previous && previous->value.has_value();
  const uint64_t before = has_prev ? *previous->value : 0;
  // A value beyond the table's width: the source is the wider (extended) counter.
  if (cur > w.max() || before > w.max()) w = CounterWidth{};
  d.saturated = w.overflow == CounterOverflow::kSaturates && cur == w.max();
  if (!has_prev) {
    d.kind = DeltaKind::kFirst;
    return d;
  }
  auto changed = [](const std::string& before, const std::string& now) {
    return !before.empty() && !now.empty() && before != now;
  };
  if (changed(previous->boot_id, current.boot_id) || changed(previous->instance, current.instance)) {
    d.kind = DeltaKind::kReset;
    d.delta = cur;
  } else if (cur >= before) {
    d.kind = DeltaKind::kDelta;
    d.delta = cur - before;
  } else if (w.overflow == CounterOverflow::kWraps && w.bits < 64) {
    d.kind = DeltaKind::kWrapped;
    d.delta = (cur + (w.max() - before) + 1) & w.max();
  } else {
    d.kind = DeltaKind::kReset;
    d.delta = cur;
  }
  const int64_t dt = current.at_ms - previous->at_ms;
  if (previous->at_ms > 0 && dt > 0) d.per_second = double(*d.delta) * 1000.0 / double(dt);
  return d;
}

const char* DeltaKindName(DeltaKind k) {
  switch (k) {
    case DeltaKind::kDelta: return "delta";
    case DeltaKind::kWrapped: return "wrapped";
    case DeltaKind::kReset: return "reset";
    case DeltaKind::kFirst: return "first";
    case DeltaKind::kAbsent: return "absent";
  }
  return "absent";
}

}  // namespace rdmascope
