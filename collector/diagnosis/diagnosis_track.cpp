#include "collector/diagnosis/diagnosis_track.h"

namespace rdmascope::collector::diagnosis {

TrackStep Tracker::Observe(const std::vector<Verdict>& verdicts, const std::set<std::string>& open_keys,
                           int64_t now_ms, int64_t unknown_hold_ms) {
  TrackStep step;
  std::set<std::string> now;
  std::map<std::string, Streak> seen;
  for (const Verdict& v : verdicts) {
    const std::string key = v.Key();
    if (!now.insert(key).second) continue;
    if (open_keys.count(key)) {
      step.upsert.push_back(v);  // refresh evidence and last_seen
      continue;
    }
    auto it = seen_.find(key);
    Streak st = it == seen_.end() ? Streak{0, now_ms} : it->second;
    ++st.runs;
    const bool held = v.scope != "unknown" || now_ms - st.since_ms >= unknown_hold_ms;
    if (st.runs >= o_.open_after && held)
      step.upsert.push_back(v);
    else
      seen[key] = st;  // runs without the verdict reset the streak
  }
  seen_ = std::move(seen);
  std::map<std::string, int> missed;
  for (const std::string& key : open_keys) {
    if (now.count(key)) continue;
    int n = (missed_.count(key) ? missed_[key] : 0) + 1;
    if (n >= o_.close_after)
      step.close.push_back(key);
    else
      missed[key] = n;
  }
  missed_ = std::move(missed);
  return step;
}

}  // namespace rdmascope::collector::diagnosis
