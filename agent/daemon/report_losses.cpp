#include "agent/daemon/report_losses.h"

#include <algorithm>

namespace rdmascope::agent {

void ReportLosses::Note(const std::string& reason, int64_t at_ms) {
  if (!episodes_.empty()) {
    Episode& last = episodes_.back();
    if (!last.ended && last.reason == reason) {
      last.first_ms = std::min(last.first_ms, at_ms);
      last.last_ms = std::max(last.last_ms, at_ms);
      ++last.count;
      return;
    }
  }
  last_id_ = std::max<uint64_t>(last_id_ + 1, at_ms > 0 ? uint64_t(at_ms) : 0);
  episodes_.push_back({last_id_, reason, at_ms, at_ms, 1, false});
  while (episodes_.size() > kMaxEpisodes) {
    Episode oldest = episodes_.front();
    episodes_.pop_front();
    Episode& next = episodes_.front();
    next.first_ms = std::min(next.first_ms, oldest.first_ms);
    next.last_ms = std::max(next.last_ms, oldest.last_ms);
    next.count += oldest.count;
    if (next.reason != oldest.reason) next.reason = kLossSeveral;
  }
}

void ReportLosses::EndOpen() {
  for (Episode& e : episodes_) e.ended = true;
}

nlohmann::json ReportLosses::ToJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const Episode& e : episodes_) {
    out.push_back({{"id", e.id},
                   {"reason", e.reason},
                   {"first_ms", e.first_ms},
                   {"last_ms", e.last_ms},
                   {"count", e.count},
                   {"ended", e.ended}});
  }
  return out;
}

std::vector<uint64_t> ReportLosses::EndedIds() const {
  std::vector<uint64_t> ids;
  for (const Episode& e : episodes_)
    if (e.ended) ids.push_back(e.id);
  return ids;
}

void ReportLosses::Acknowledge(const std::vector<uint64_t>& ids) {
  episodes_.erase(std::remove_if(episodes_.begin(), episodes_.end(),
                                 [&](const Episode& e) {
                                   return e.ended && std::find(ids.begin(), ids.end(), e.id) != ids.end();
                                 }),
                  episodes_.end());
}

}  // namespace rdmascope::agent
