// Whether a target's newest probe round looks different enough from its
// previous one that the collector should hear of it before the next
// scheduled report: a path that turned bad (a fault began) or good again
// (it cleared).
//
// Contract: pure functions over report "probes" entries (probe_json.h), no
// I/O, no state. An entry is bad when it carries a completion error or a
// connect failure, sent nothing, or lost at least two probes and a fifth of
// what it sent: one probe lost in a round is background noise on a big
// fleet and must not double its report rate. The fastest round trip is
// compared too, because added delay shows there first and loses nothing:
// a move by at least 2x and at least kMinRttMoveUs either way is a turn.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace rdmascope::probes {

struct RoundHealth {
  bool bad = false;
  std::optional<double> rtt_min_us;  // absent when nothing came back
};

inline constexpr double kMinRttMoveUs = 500;

RoundHealth HealthOfEntry(const nlohmann::json& entry);

// True when `now` should be reported early after `before` (nullopt: the
// target's first round, a turn only when it is bad).
bool HealthTurned(const std::optional<RoundHealth>& before, const RoundHealth& now);

}  // namespace rdmascope::probes
