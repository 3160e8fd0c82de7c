#include "collector/diagnosis_track.h"

namespace rdmascope::collector::diagnosis {

TrackStep Tracker::Observe(const std::vector<Verdict>& verdicts, const std::set<std::string>& open_keys) {
  TrackStep step;
  std::set<std::string> now;
  std::map<std::string, int> seen;
  for (const Verdict& v : verdicts) {
    const std::string key = v.Key();
    if (!now.insert(key).second) continue;
    if (open_keys.count(key)) {
      step.upsert.push_back(v);  // refresh evidence and last_seen
      continue;
    }
    int n = seen_.count(key) ? seen_[key] + 1 : 1;
    if (n >= o_.open_after)
      step.upsert.push_back(v);
    else
      seen[key] = n;  // runs without the verdict reset the streak
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
