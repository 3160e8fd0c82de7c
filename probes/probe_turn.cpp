#include "probes/probe_turn.h"

#include <algorithm>

namespace rdmascope::probes {

using nlohmann::json;

namespace {

double Number(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

}  // namespace

RoundHealth HealthOfEntry(const json& entry) {
  RoundHealth h;
  if (!entry.is_object()) return h;
  auto errors = entry.find("errors");
  const bool has_errors = errors != entry.end() && errors->is_array() && !errors->empty();
  auto summary = entry.find("summary");
  if (summary == entry.end() || !summary->is_object()) {
    h.bad = has_errors;
    return h;
  }
  const double sent = Number(*summary, "sent");
  const double lost = Number(*summary, "lost");
  h.bad = has_errors || sent <= 0 || (lost >= 2 && lost * 5 >= sent);
  auto rtt = summary->find("rtt_us");
  if (rtt != summary->end() && rtt->is_object() && Number(*rtt, "count") > 0) h.rtt_min_us = Number(*rtt, "min");
  return h;
}

bool HealthTurned(const std::optional<RoundHealth>& before, const RoundHealth& now) {
  if (!before) return now.bad;
  if (before->bad != now.bad) return true;
  if (!before->rtt_min_us || !now.rtt_min_us) return false;
  const double lo = std::min(*before->rtt_min_us, *now.rtt_min_us);
  const double hi = std::max(*before->rtt_min_us, *now.rtt_min_us);
  return hi - lo >= kMinRttMoveUs && hi >= 2 * lo;
}

}  // namespace rdmascope::probes
