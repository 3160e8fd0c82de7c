#include "probes/rc_session_table.h"

namespace rdmascope::probes {

Result<RcAdmission> RcSessionTable::Admit(const std::string& key, uint64_t now_ns) {
  RcAdmission a;
  if (!key.empty()) {
    auto it = by_key_.find(key);
    if (it != by_key_.end()) {
      a.replaced.push_back(it->second);
      Remove(it->second);
    }
  }
  if (limits_.cap == 0) return Status::Error("RC sessions are disabled on this agent (session cap 0)");
  if (entries_.size() >= limits_.cap) {
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (oldest == entries_.end() || it->second.last_active_ns < oldest->second.last_active_ns) oldest = it;
    }
    const uint64_t idle = now_ns > oldest->second.last_active_ns ? now_ns - oldest->second.last_active_ns : 0;
    if (idle < limits_.evict_min_idle_ns) {
      return Status::Error("RC session table full: " + std::to_string(limits_.cap) +
                           " sessions, the longest idle for " + std::to_string(idle / 1000000) +
                           " ms (a session gives way after " + std::to_string(limits_.evict_min_idle_ns / 1000000) +
                           " ms idle); raise the agent's --rc-max-sessions or retry later");
    }
    a.evicted.push_back(oldest->first);
    Remove(oldest->first);
  }
  a.id = next_id_++;
  entries_[a.id] = Entry{key, now_ns};
  if (!key.empty()) by_key_[key] = a.id;
  return a;
}

void RcSessionTable::Touch(uint64_t id, uint64_t now_ns) {
  auto it = entries_.find(id);
  if (it != entries_.end() && now_ns > it->second.last_active_ns) it->second.last_active_ns = now_ns;
}

std::vector<uint64_t> RcSessionTable::Expire(uint64_t now_ns) {
  std::vector<uint64_t> out;
  for (const auto& [id, e] : entries_) {
    if (now_ns >= e.last_active_ns && now_ns - e.last_active_ns >= limits_.idle_ns) out.push_back(id);
  }
  for (uint64_t id : out) Remove(id);
  return out;
}

void RcSessionTable::Remove(uint64_t id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (!it->second.key.empty()) {
    auto k = by_key_.find(it->second.key);
    if (k != by_key_.end() && k->second == id) by_key_.erase(k);
  }
  entries_.erase(it);
}

}  // namespace rdmascope::probes
