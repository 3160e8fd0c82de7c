// PinglistCache: the pinglist plans of the rails (pinglist.h), kept for a
// short while so that the fleet's requests share them.
//
// Contract:
//  - For(requester, rail, now_ms, nodes) answers PinglistPlan(...).For(requester)
//    from a plan of that rail built at most refresh_ms before now_ms and in
//    the same rotation period; otherwise it takes the node list from `nodes`
//    (once for all rails while it is fresh) and builds one. So a report shows
//    in the others' pinglists within refresh_ms, and generated_at_ms is when
//    the plan was built. refresh_ms <= 0: a new plan every call.
//  - targets (may be null): the link coverage targets, applied per answer
//    (PinglistPlan::For), so a new diagnosis pass shows at once.
//  - A failure of `nodes` is returned as it is; nothing is cached then.
//  - Thread-safe. Plans are built under the cache's mutex (concurrent
//    requests build a rail's plan once); answers are built outside it.
//  - At most kMaxRails plans are kept: past that, the plans are dropped and
//    built again as asked for.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/readmodel/pinglist.h"
#include "common/status.h"

namespace rdmascope::collector {

class PinglistCache {
 public:
  using NodeSource = std::function<Result<std::vector<NodeInfo>>()>;
  static constexpr size_t kMaxRails = 64;

  PinglistCache(PinglistOptions options, int64_t refresh_ms) : options_(std::move(options)), refresh_ms_(refresh_ms) {}

  Result<nlohmann::json> For(const std::string& requester, const std::string& rail, int64_t now_ms,
                             const NodeSource& nodes, const CoverageTargets* targets = nullptr);

  // How many plans were built so far (for tests).
  uint64_t plans_built() const;

 private:
  struct Plan {
    std::shared_ptr<const std::vector<NodeInfo>> nodes;  // the plan points into them
    std::unique_ptr<const PinglistPlan> plan;
  };
  bool Fresh(int64_t built_at, int64_t now_ms) const;

  const PinglistOptions options_;
  const int64_t refresh_ms_;
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<NodeInfo>> nodes_;  // the node list of the plans below
  int64_t nodes_at_ = 0;
  std::map<std::string, std::shared_ptr<const Plan>> plans_;  // by rail, all on nodes_
  uint64_t built_ = 0;
};

}  // namespace rdmascope::collector
