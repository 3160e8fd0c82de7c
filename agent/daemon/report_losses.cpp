#include "agent/daemon/report_losses.h"

#include <algorithm>

namespace rdmascope::agent {

void ReportLosses::Note(const std::string& reason, int64_t at_ms) {
  if (!episodes_.empty()) {
    Episode& last = episodes_.back();
    const bool full = episodes_.size() >= kMaxEpisodes;
    if (full || (!last.ended && last.reason == reason)) {
      last.first_ms = std::min(last.first_ms, at_ms);
      last.last_ms = std::max(last.last_ms, at_ms);
      ++last.count;
      if (last.reason != reason) last.reason = kLossSeveral;
      return;
    }
  }
  last_id_ = std::max<uint64_t>(last_id_ + 1, at_ms > 0 ? uint64_t(at_ms) : 0);
  episodes_.push_back({last_id_, reason, at_ms, at_ms, 1, false});
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

ReportLosses ReportLosses::FromJson(const nlohmann::json& episodes) {
  ReportLosses out;
  if (!episodes.is_array()) return out;
  for (const nlohmann::json& e : episodes) {
    if (out.episodes_.size() >= kMaxEpisodes) break;
    if (!e.is_object()) continue;
    auto id = e.find("id"), reason = e.find("reason"), first = e.find("first_ms"), last = e.find("last_ms"),
         count = e.find("count"), ended = e.find("ended");
    if (id == e.end() || !id->is_number_unsigned() || reason == e.end() || !reason->is_string() ||
        first == e.end() || !first->is_number_integer() || last == e.end() || !last->is_number_integer() ||
        count == e.end() || !count->is_number_unsigned() || ended == e.end() || !ended->is_boolean())
      continue;
    Episode ep{id->get<uint64_t>(), reason->get<std::string>(), first->get<int64_t>(), last->get<int64_t>(),
               count->get<uint64_t>(), ended->get<bool>()};
    if (ep.count == 0 || ep.last_ms < ep.first_ms || ep.first_ms < 0) continue;
    out.last_id_ = std::max(out.last_id_, ep.id);
    out.episodes_.push_back(std::move(ep));
  }
  return out;
}

}  // namespace rdmascope::agent
