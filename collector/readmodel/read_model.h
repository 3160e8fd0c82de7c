// The read model: the fleet's newest state in memory, beside the store.
//
// Contract:
//  - Matrix, MetricsSnapshot, WorstPairs, NodeInfos and PortPage answer from the
//    published snapshot (read_snapshot.h) without SQL and without the
//    writer's lock, so a scrape or a dashboard never waits for a commit.
//  - The store fills it: SnapshotLoader (store/) loads it at open and
//    refreshes it after every commit from the rows that commit wrote; for a
//    deferred batch the caller publishes the update (PublishSnapshot) on a
//    thread of its own, in commit order.
//  - A node keeps the probe pairs of at most max_destinations_per_node
//    destinations (those reported last); the others' rows stay in the
//    database, and log says what was dropped.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/readmodel/node_info.h"
#include "collector/readmodel/port_page.h"
#include "collector/readmodel/read_snapshot.h"
#include "collector/rules/thresholds.h"
#include "common/status.h"

namespace rdmascope::collector {

struct ReadModelOptions {
  size_t max_destinations_per_node = 1024;
  CounterThresholds thresholds = DefaultCounterThresholds();  // shown in the metrics rows
  std::function<void(const std::string&)> log;                // may be empty
};

// One commit's update of the read model, made on the writer and published
// off it (ReadModel::PublishSnapshot).
struct SnapshotUpdate {
  std::vector<std::shared_ptr<NodeState>> states;  // read after the commit, pairs not yet merged
  std::vector<std::shared_ptr<const ProbeRow>> rows;  // the commit's probe rows, in the order written
  bool pending = false;  // counted as owed until PublishSnapshot
};

class ReadModel {
 public:
  explicit ReadModel(ReadModelOptions options);
  ReadModel(const ReadModel&) = delete;
  ReadModel& operator=(const ReadModel&) = delete;

  // The dashboard's latency matrix (contract in read_snapshot_matrix.cpp);
  // since_ms < 0: the last three report intervals. rail set: only summaries
  // of that rail. Not-run summaries (a local port down) are left out.
  Result<nlohmann::json> Matrix(int64_t since_ms, int max_rows, const std::optional<std::string>& rail = std::nullopt);
  // The same answer as JSON text, written without building it as a value.
  Result<std::string> MatrixText(int64_t since_ms, int max_rows, const std::optional<std::string>& rail = std::nullopt);
  // Everything /metrics exports, as plain rows: SnapshotMetricsRows with
  // worst_pairs rows, plus "diagnoses_open", "worst_pairs_limit" and "thresholds".
  Result<nlohmann::json> MetricsSnapshot(int64_t probes_since_ms, int worst_pairs);
  // The same without "ports" and "counters", which stay in the nodes' own
  // rows (NodeState::ports, ::counters, and their rendered families), so a
  // scrape copies none of them.
  struct MetricsParts {
    nlohmann::json rows;
    std::vector<std::shared_ptr<const NodeState>> nodes;
  };
  Result<MetricsParts> MetricsSnapshotParts(int64_t probes_since_ms, int worst_pairs);
  // The newest summary of every pair ending at or after since_ms, worst
  // first: pairs with errors, then by loss ratio, then by p99 RTT.
  Result<nlohmann::json> WorstPairs(int64_t since_ms, int limit);
  Result<std::vector<NodeInfo>> NodeInfos();
  // One page of the fleet's port list as JSON text (contract in port_page.h).
  Result<std::string> PortPage(const PortPageQuery& q);

  // Publishes one deferred update. Call without holding the writer's lock,
  // from one thread, in the order the batches committed. Frees the states
  // it replaced before it returns.
  void PublishSnapshot(SnapshotUpdate& update);
  // Blocks until every deferred update handed out has been published.
  void WaitForPublishedSnapshot();
  // Counts one deferred update as owed (SnapshotLoader, when it hands one out).
  void OwePublish();
  // The node states the last refreshes replaced, for the caller to free off
  // the writer's lock: a node's state holds its hundreds of pairs.
  std::vector<std::shared_ptr<const NodeState>> TakeReplacedStates();
  void AddReplaced(std::vector<std::shared_ptr<const NodeState>> states);
  // Keeps st's pairs within max_destinations_per_node, saying so when it
  // drops any; `before`: how many pairs st had before this commit's.
  void CapDestinations(NodeState& st, size_t before);

  ReadSnapshot& snapshot() { return snapshot_; }

 private:
  ReadModelOptions options_;
  ReadSnapshot snapshot_;
  std::mutex publish_mu_;
  std::condition_variable publish_cv_;
  int publishes_owed_ = 0;  // under publish_mu_
  std::mutex replaced_mu_;
  std::vector<std::shared_ptr<const NodeState>> replaced_;  // under replaced_mu_
};

}  // namespace rdmascope::collector
