#include "collector/readmodel/pinglist_cache.h"

namespace rdmascope::collector {

bool PinglistCache::Fresh(int64_t built_at, int64_t now_ms) const {
  if (refresh_ms_ <= 0 || now_ms < built_at || now_ms - built_at >= refresh_ms_) return false;
  // The same rotation period, or the answer would lag the rotation.
  if (options_.rotation_ms <= 0 || built_at <= 0) return true;
  return built_at / options_.rotation_ms == now_ms / options_.rotation_ms;
}

Result<nlohmann::json> PinglistCache::For(const std::string& requester, const std::string& rail, int64_t now_ms,
                                          const NodeSource& nodes, const CoverageTargets* targets) {
  std::shared_ptr<const Plan> plan;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!nodes_ || !Fresh(nodes_at_, now_ms)) {
      auto list = nodes();
      if (!list.ok()) return list.status();
      nodes_ = std::make_shared<const std::vector<NodeInfo>>(std::move(list).value());
      nodes_at_ = now_ms;
      plans_.clear();
    }
    auto it = plans_.find(rail);
    if (it == plans_.end()) {
      if (plans_.size() >= kMaxRails) plans_.clear();
      auto p = std::make_shared<Plan>();
      p->nodes = nodes_;
      p->plan = std::make_unique<const PinglistPlan>(*p->nodes, nodes_at_, options_, rail);
      ++built_;
      it = plans_.emplace(rail, std::move(p)).first;
    }
    plan = it->second;
  }
  return plan->plan->For(requester, targets);
}

uint64_t PinglistCache::plans_built() const {
  std::lock_guard<std::mutex> lock(mu_);
  return built_;
}

}  // namespace rdmascope::collector
