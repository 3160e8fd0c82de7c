// Retention::ForgetStep: what was not seen for the forget age leaves the database
// and the read snapshot, a few nodes per step so ingest never waits long.
#include <algorithm>
#include <set>

#include "collector/store/retention.h"
#include "collector/store/store_rows.h"
#include "collector/store/store_status_macros.h"

namespace rdmascope::collector {

namespace {
// Nodes visited per step: each costs a few keyed deletes and, when its pairs
// aged, one copy of its snapshot state.
constexpr int64_t kForgetNodesPerStep = 64;
}  // namespace

Result<int64_t> Retention::ForgetStep(int64_t now_ms, const RetentionPolicy& policy, ForgetTally* tally) {
  std::vector<std::shared_ptr<const NodeState>> replaced;  // freed after the lock
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t cutoff = now_ms - policy.forget_after_ms;
  const int64_t pair_cutoff = now_ms - std::min(policy.forget_after_ms, policy.raw_max_age_ms);
  auto visit = NextNodesToVisit();
  if (!visit.ok()) return visit.status();
  const std::vector<ForgetVisit>& nodes = visit.value();
  if (nodes.empty()) {
    forget_cursor_.clear();  // the next step starts the next round
    return int64_t{0};
  }
  const std::string after = forget_cursor_;
  forget_cursor_ = nodes.back().first;
  std::vector<std::string> gone, changed;
  RETURN_IF_ERROR(DeleteForgottenRows(after, nodes, cutoff, tally, &gone, &changed));
  read_.WaitForPublishedSnapshot();  // no deferred update may hold an older state
  // The deletes stand either way; a snapshot that could not follow is rebuilt
  // whole at the next commit.
  if (!FollowInSnapshot(nodes, gone, changed, pair_cutoff, tally, &replaced).ok()) loader_.MarkDirty();
  return static_cast<int64_t>(nodes.size());
}

Result<std::vector<Retention::ForgetVisit>> Retention::NextNodesToVisit() {
  std::vector<ForgetVisit> nodes;
  ASSIGN_STMT(q, Q("SELECT name, last_report_at FROM nodes WHERE name > ?1 ORDER BY name LIMIT ?2"));
  q.Bind(1, forget_cursor_).Bind(2, kForgetNodesPerStep);
  auto rows = Rows(q);
  if (!rows.ok()) return rows.status();
  for (const auto& row : rows.value())
    nodes.emplace_back(row["name"].get<std::string>(), row["last_report_at"].get<int64_t>());
  return nodes;
}

Status Retention::DeleteForgottenRows(const std::string& after, const std::vector<ForgetVisit>& nodes,
                                      int64_t cutoff, ForgetTally* tally, std::vector<std::string>* gone,
                                      std::vector<std::string>* changed) {
  // Every row of a node no longer reporting, in every table about it alone.
  static const char* const kWholeNode[] = {
      "DELETE FROM ports WHERE node = ?1",
      "DELETE FROM counters_latest WHERE node = ?1",
      "DELETE FROM wc_error_totals WHERE node = ?1",
      "DELETE FROM node_neighbours WHERE node = ?1",
      "DELETE FROM nodes WHERE name = ?1",
  };
  // The rows not refreshed since the cutoff of the nodes in (?1, ?2], in
  // the order NextNodesToVisit visits them (the same collation).
  static const char* const kAgedRows[] = {
      "DELETE FROM ports WHERE node > ?1 AND node <= ?2 AND updated_at < ?3 RETURNING node",
      "DELETE FROM counters_latest WHERE node > ?1 AND node <= ?2 AND sampled_at < ?3 RETURNING node",
      "DELETE FROM node_neighbours WHERE node > ?1 AND node <= ?2 AND at < ?3 RETURNING node",
  };
  Transaction tx(db_);
  RETURN_IF_ERROR(tx.Begin());
  std::set<std::string> aged;
  for (const char* sql : kAgedRows) {
    ASSIGN_STMT(d, Q(sql));
    d.Bind(1, after).Bind(2, nodes.back().first).Bind(3, cutoff);
    auto deleted = Rows(d);  // one row per row deleted: its node
    if (!deleted.ok()) return deleted.status();
    for (const auto& row : deleted.value()) aged.insert(row["node"].get<std::string>());
    tally->rows += static_cast<int64_t>(deleted.value().size());
  }
  for (const auto& [name, last_report_at] : nodes) {
    if (last_report_at >= cutoff) {
      if (aged.count(name)) changed->push_back(name);
      continue;
    }
    for (const char* sql : kWholeNode) {
      ASSIGN_STMT(d, Q(sql));
      d.Bind(1, name);
      RETURN_IF_ERROR(d.Run());
      tally->rows += db_.Changes();
    }
    gone->push_back(name);
    ++tally->nodes;
  }
  return tx.Commit();
}

Status Retention::FollowInSnapshot(const std::vector<ForgetVisit>& nodes, const std::vector<std::string>& gone,
                                   const std::vector<std::string>& changed, int64_t pair_cutoff, ForgetTally* tally,
                                   std::vector<std::shared_ptr<const NodeState>>* replaced) {
  for (const std::string& name : gone)
    if (auto old = snapshot_.RemoveNode(name)) replaced->push_back(std::move(old));
  for (const auto& [name, last_report_at] : nodes) {
    auto old = snapshot_.Node(name);
    if (!old) continue;
    const bool reread = std::find(changed.begin(), changed.end(), name) != changed.end();
    size_t aged = 0;
    for (const auto& [key, e] : old->pairs)
      if (e.newest->interval_end < pair_cutoff) ++aged;
    if (!reread && aged == 0) continue;
    std::shared_ptr<NodeState> fresh;
    if (reread) {
      auto st = loader_.LoadNodeState(name);
      if (!st.ok()) return st.status();
      fresh = std::move(st).value();
      if (!fresh) continue;
      fresh->pairs = old->pairs;
    } else {
      fresh = std::make_shared<NodeState>(*old);
    }
    for (auto it = fresh->pairs.begin(); it != fresh->pairs.end();)
      it = it->second.newest->interval_end < pair_cutoff ? fresh->pairs.erase(it) : std::next(it);
    tally->pairs += static_cast<int64_t>(aged);
    snapshot_.PutNode(std::move(fresh));
    replaced->push_back(std::move(old));
  }
  return Status::Ok();
}

}  // namespace rdmascope::collector
