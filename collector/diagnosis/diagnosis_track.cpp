// Tracker::Observe (contract in diagnosis_track.h).
#include "collector/diagnosis/diagnosis_track.h"

#include <algorithm>
#include <iterator>
#include <set>

namespace rdmascope::collector::diagnosis {
namespace {

using nlohmann::json;

// "scope|subject" and "kind" of a key "scope|subject|kind".
std::string ElementOf(const std::string& key) { return key.substr(0, key.rfind('|')); }
std::string KindOf(const std::string& key) { return key.substr(key.rfind('|') + 1); }

// critical > warning > anything else.
int Rank(const std::string& severity) { return severity == "critical" ? 2 : severity == "warning" ? 1 : 0; }

// At one severity, the worse kind: access > rnr > unreachable > port_down >
// loss > latency > host_busy > link_errors > anything else.
int KindRank(const std::string& kind) {
  static const char* const kWorstFirst[] = {"access",  "rnr",     "unreachable", "port_down",
                                            "loss",    "latency", "host_busy",   "link_errors"};
  const int n = static_cast<int>(std::size(kWorstFirst));
  for (int i = 0; i < n; ++i)
    if (kind == kWorstFirst[i]) return n - i;
  return 0;
}

// Whether a verdict (severity, kind) is worse than what is held: more severe,
// or as severe and a worse kind (a lossy host that stops answering at all).
bool Worse(const std::string& severity, const std::string& kind, const std::string& held_severity,
           const std::string& held_kind) {
  if (Rank(severity) != Rank(held_severity)) return Rank(severity) > Rank(held_severity);
  return KindRank(kind) > KindRank(held_kind);
}

json Escalated(const std::string& from_kind, const std::string& from_severity, int64_t at_ms) {
  return {{"what", "escalated"}, {"from_kind", from_kind}, {"from_severity", from_severity}, {"at_ms", at_ms}};
}

// The "escalated" entries of a stored evidence array (taken back after a restart).
json EscalationsIn(const json& evidence) {
  json out = json::array();
  if (evidence.is_array())
    for (const json& e : evidence)
      if (e.is_object() && e.value("what", "") == "escalated") out.push_back(e);
  return out;
}

// The verdict as it is stored: its flaps and its escalations cited.
Verdict Cited(Verdict v, int flaps, const json& escalated) {
  v.flaps = flaps;
  if (flaps > 0) v.evidence.push_back({{"what", "flapping"}, {"flaps", flaps}});
  for (const json& e : escalated) v.evidence.push_back(e);
  return v;
}

}  // namespace

TrackStep Tracker::Observe(const std::vector<Verdict>& verdicts, const OpenDiagnoses& open, int64_t now_ms,
                           int64_t interval_ms) {
  TrackStep step;
  const int64_t reopen_window = interval_ms * o_.reopen_within;
  for (auto it = closed_.begin(); it != closed_.end();)  // past the window: a return is a new diagnosis
    it = now_ms - it->second.closed_ms > reopen_window ? closed_.erase(it) : std::next(it);
  // element -> its open key. Of two open on one element (rows from before
  // one diagnosis per element held whatever the kind) the more severe stays.
  std::map<std::string, std::string> open_by_element;
  for (const auto& [key, row] : open) {
    auto known = open_.find(key);
    if (known == open_.end())  // a restart: its absence counts from now
      known = open_.emplace(key, Open{now_ms, false, 0, row.severity, EscalationsIn(row.evidence)}).first;
    known->second.severity = row.severity;
    auto [held, fresh] = open_by_element.emplace(ElementOf(key), key);
    if (fresh) continue;
    const bool keep_this = Rank(row.severity) > Rank(open.at(held->second).severity);
    const std::string drop = keep_this ? held->second : key;
    if (keep_this) held->second = key;
    step.close.push_back(drop);
    open_.erase(drop);
  }
  std::set<std::string> counted;    // elements a verdict of this run already counted for
  std::set<std::string> refreshed;  // open keys (as escalated) this run saw
  std::map<std::string, Streak> seen;
  for (const Verdict& v : verdicts) {
    const std::string element = v.Element();
    if (!counted.insert(element).second) continue;  // critical first: the first one on an element counts
    if (auto same = open_by_element.find(element); same != open_by_element.end()) {
      const std::string key = same->second;
      Open o = open_[key];
      // A flap is a return after a whole interval without it (not a pass
      // that missed it once).
      if (o.missed && now_ms - o.last_seen_ms > interval_ms) ++o.flaps;
      o.missed = false;
      o.last_seen_ms = now_ms;
      Verdict stored = v;
      if (Worse(v.severity, v.kind, o.severity, KindOf(key))) {  // escalates in place: the same row takes the new kind
        o.escalated.push_back(Escalated(KindOf(key), o.severity, now_ms));
        o.severity = v.severity;
        step.escalated[key] = stored.Key();
      } else {  // as severe or milder: what is open stays
        stored.kind = KindOf(key);
        stored.severity = o.severity;
      }
      open_.erase(key);
      same->second = stored.Key();
      refreshed.insert(stored.Key());
      step.upsert.push_back(Cited(std::move(stored), o.flaps, o.escalated));
      open_[same->second] = std::move(o);
      continue;
    }
    auto it = seen_.find(element);
    Streak st = it == seen_.end() ? Streak{0, now_ms} : it->second;
    ++st.runs;
    // The weakest verdicts must hold for an interval: unknown, and the fleet
    // as a whole (a moment when every probe was slow is no fault).
    const bool held = (v.scope != "unknown" && v.scope != "fleet") || now_ms - st.since_ms >= interval_ms;
    if (st.runs < o_.open_after || !held) {
      seen[element] = st;  // runs without the verdict reset the streak
      continue;
    }
    Verdict opened = v;
    int flaps = 0;
    json escalated = json::array();
    // Back within the reopen window after it closed: the same fault, one
    // more flap, and no milder than it was.
    if (auto back = closed_.find(element); back != closed_.end()) {
      const Closed& c = back->second;
      flaps = c.flaps + 1;
      escalated = c.escalated;
      if (Worse(v.severity, v.kind, c.severity, c.kind)) {
        escalated.push_back(Escalated(c.kind, c.severity, now_ms));
      } else {
        opened.kind = c.kind;
        opened.severity = c.severity;
      }
      closed_.erase(back);
    }
    open_[opened.Key()] = Open{now_ms, false, flaps, opened.severity, escalated};
    step.upsert.push_back(Cited(std::move(opened), flaps, escalated));
  }
  seen_ = std::move(seen);
  for (const auto& [element, key] : open_by_element) {
    if (refreshed.count(key)) continue;
    Open& o = open_[key];
    o.missed = true;
    const int64_t wait = interval_ms * (o_.close_after + std::min(o.flaps, o_.max_flap_intervals));
    if (now_ms - o.last_seen_ms >= wait) {
      step.close.push_back(key);
      closed_[element] = Closed{now_ms, o.flaps, KindOf(key), o.severity, o.escalated};
      open_.erase(key);
    }
  }
  std::set<std::string> keep;  // forget what the store no longer holds open
  for (const auto& [element, key] : open_by_element) keep.insert(key);
  for (const Verdict& v : step.upsert) keep.insert(v.Key());
  for (auto it = open_.begin(); it != open_.end();) it = keep.count(it->first) ? std::next(it) : open_.erase(it);
  return step;
}

}  // namespace rdmascope::collector::diagnosis
