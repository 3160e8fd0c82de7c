// Tracker::Observe (contract in diagnosis_track.h).
#include "collector/diagnosis/diagnosis_track.h"

#include <algorithm>

namespace rdmascope::collector::diagnosis {
namespace {

// "scope|subject" of a key "scope|subject|kind".
std::string ElementOf(const std::string& key) { return key.substr(0, key.rfind('|')); }

}  // namespace

TrackStep Tracker::Observe(const std::vector<Verdict>& verdicts, const std::set<std::string>& open_keys,
                           int64_t now_ms, int64_t interval_ms) {
  TrackStep step;
  const int64_t reopen_window = interval_ms * o_.reopen_within;
  for (auto it = closed_.begin(); it != closed_.end();)  // past the window: a return is a new diagnosis
    it = now_ms - it->second.closed_ms > reopen_window ? closed_.erase(it) : std::next(it);
  std::map<std::string, std::string> open_by_element;  // scope|subject -> open key
  for (const std::string& key : open_keys) {
    open_by_element[ElementOf(key)] = key;
    if (!open_.count(key)) open_[key] = Open{now_ms, false, 0};  // a restart: its absence counts from now
  }
  std::set<std::string> seen_now;
  std::map<std::string, Streak> seen;
  std::map<std::string, int> severity_of_open;  // open key -> 1 when critical (from the verdicts refreshing it)
  for (const Verdict& v : verdicts) {
    const std::string key = v.Key();
    auto same = open_by_element.find(v.scope + "|" + v.subject);
    if (same != open_by_element.end() && same->second != key && v.severity == "critical" &&
        open_keys.count(same->second)) {
      // Is the open one a warning? Only the store knows its severity; the
      // kinds that are always critical tell enough.
      const std::string open_kind = same->second.substr(same->second.rfind('|') + 1);
      const bool open_critical = open_kind == "unreachable" || open_kind == "port_down" || open_kind == "rnr" ||
                                 open_kind == "access" || open_kind == "loss";
      if (!open_critical) {
        step.close.push_back(same->second);
        open_.erase(same->second);
        open_by_element.erase(same);
        same = open_by_element.end();
      }
    }
    if (same != open_by_element.end()) {
      const std::string& open_key = same->second;
      if (!seen_now.insert(open_key).second) continue;
      Open& o = open_[open_key];
      // A flap is a return after a whole interval without it (not a pass
      // that missed it once).
      if (o.missed && now_ms - o.last_seen_ms > interval_ms) ++o.flaps;
      o.missed = false;
      o.last_seen_ms = now_ms;
      Verdict refreshed = v;
      refreshed.kind = open_key.substr(open_key.rfind('|') + 1);
      refreshed.flaps = o.flaps;
      if (o.flaps > 0) refreshed.evidence.push_back({{"what", "flapping"}, {"flaps", o.flaps}});
      step.upsert.push_back(std::move(refreshed));
      continue;
    }
    if (!seen_now.insert(key).second) continue;
    auto it = seen_.find(key);
    Streak st = it == seen_.end() ? Streak{0, now_ms} : it->second;
    ++st.runs;
    // The weakest verdicts must hold for an interval: unknown, and the fleet
    // as a whole (a moment when every probe was slow is no fault).
    const bool held = (v.scope != "unknown" && v.scope != "fleet") || now_ms - st.since_ms >= interval_ms;
    if (st.runs >= o_.open_after && held) {
      // Back within the reopen window after it closed: the same fault, one more flap.
      int flaps = 0;
      if (auto back = closed_.find(key); back != closed_.end()) {
        flaps = back->second.flaps + 1;
        closed_.erase(back);
      }
      Verdict opened = v;
      opened.flaps = flaps;
      if (flaps > 0) opened.evidence.push_back({{"what", "flapping"}, {"flaps", flaps}});
      step.upsert.push_back(std::move(opened));
      open_[key] = Open{now_ms, false, flaps};
    } else {
      seen[key] = st;  // runs without the verdict reset the streak
    }
  }
  seen_ = std::move(seen);
  for (const std::string& key : open_keys) {
    if (seen_now.count(key)) continue;
    Open& o = open_[key];
    o.missed = true;
    const int64_t wait = interval_ms * (o_.close_after + std::min(o.flaps, o_.max_flap_intervals));
    if (now_ms - o.last_seen_ms >= wait) {
      step.close.push_back(key);
      closed_[key] = Closed{now_ms, o.flaps};
      open_.erase(key);
    }
  }
  for (auto it = open_.begin(); it != open_.end();) {  // forget what the store no longer holds open
    const bool upserted = std::any_of(step.upsert.begin(), step.upsert.end(),
                                      [&](const Verdict& v) { return v.Key() == it->first; });
    it = open_keys.count(it->first) || upserted ? std::next(it) : open_.erase(it);
  }
  return step;
}

}  // namespace rdmascope::collector::diagnosis
