#include "collector/http/client_slots.h"

namespace rdmascope::collector {

ClientSlots::Outcome ClientSlots::Acquire(const std::string& ip) {
  std::lock_guard<std::mutex> lock(mu_);
  if (total_ >= max_total_) return Outcome::kFull;
  size_t& mine = per_client_[ip];
  if (mine >= max_per_client_) return Outcome::kClientFull;  // the entry exists: it holds a connection
  ++mine;
  ++total_;
  return Outcome::kTaken;
}

void ClientSlots::Release(const std::string& ip) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = per_client_.find(ip);
  if (it == per_client_.end() || it->second == 0) return;
  if (--it->second == 0) per_client_.erase(it);
  --total_;
}

size_t ClientSlots::total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

}  // namespace rdmascope::collector
