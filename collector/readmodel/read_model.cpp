// The read model: the in-memory snapshot the fleet's hot reads answer from
// (contract in read_model.h).
#include "collector/readmodel/read_model.h"

#include <map>
#include <string_view>

namespace rdmascope::collector {

using nlohmann::json;

ReadModel::ReadModel(ReadModelOptions options) : options_(std::move(options)) {}

void ReadModel::AddReplaced(std::vector<std::shared_ptr<const NodeState>> states) {
  std::lock_guard<std::mutex> lock(replaced_mu_);
  for (auto& st : states) replaced_.push_back(std::move(st));
}

void ReadModel::OwePublish() {
  std::lock_guard<std::mutex> lock(publish_mu_);
  ++publishes_owed_;
}

using nlohmann::json;

Result<ReadModel::MetricsParts> ReadModel::MetricsSnapshotParts(int64_t probes_since_ms, int worst_pairs) {
  ReadSnapshot::View view = snapshot_.Take();
  json out = SnapshotMetricsRows(view, probes_since_ms, worst_pairs);
  out["diagnoses_open"] = *view.diagnoses_open;  // refreshed by ApplyDiagnoses
  out["worst_pairs_limit"] = worst_pairs;
  json thresholds = json::object();
  for (const auto& [name, value] : options_.thresholds) thresholds[name] = value;
  out["thresholds"] = std::move(thresholds);
  return MetricsParts{std::move(out), std::move(view.nodes)};
}

Result<json> ReadModel::MetricsSnapshot(int64_t probes_since_ms, int worst_pairs) {
  auto parts = MetricsSnapshotParts(probes_since_ms, worst_pairs);
  if (!parts.ok()) return parts.status();
  json out = std::move(parts.value().rows);
  json& ports = out["ports"] = json::array();
  json& counters = out["counters"] = json::array();
  for (const auto& n : parts.value().nodes) {
    for (const json& r : n->ports) ports.push_back(r);
    for (const json& r : n->counters) counters.push_back(r);
  }
  return out;
}

Result<std::string> ReadModel::MatrixText(int64_t since_ms, int max_rows, const std::optional<std::string>& rail) {
  return SnapshotMatrixText(snapshot_.Take(), since_ms, max_rows, rail);
}

Result<nlohmann::json> ReadModel::Matrix(int64_t since_ms, int max_rows, const std::optional<std::string>& rail) {
  auto text = MatrixText(since_ms, max_rows, rail);
  if (!text.ok()) return text.status();
  nlohmann::json m = nlohmann::json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (m.is_discarded()) return Status::Error("the matrix answer is not valid JSON (a bug in SnapshotMatrixText)");
  return m;
}

Result<json> ReadModel::WorstPairs(int64_t since_ms, int limit) {
  return SnapshotWorstPairs(snapshot_.Take(), since_ms, limit);  // no SQL, no store mutex
}

Result<std::string> ReadModel::PortPage(const PortPageQuery& q) {
  return SnapshotPortPage(snapshot_.Take(), q);  // no SQL, no store mutex
}

Result<std::vector<NodeInfo>> ReadModel::NodeInfos() {
  // From the read snapshot: no SQL, no store mutex (leaf switch: LeafSwitch()).
  // Per rail, the leaf of the port that rail's probe rows name.
  std::vector<NodeInfo> out;
  for (const auto& n : snapshot_.Take().nodes) {
    out.push_back(NodeInfo{n->name, n->labels.is_object() ? n->labels : json::object(), n->last_report_at,
                           n->leaf_switch});
    for (const auto& [rail, port] : n->rail_ports)
      if (auto leaf = n->port_leaves.find(port); leaf != n->port_leaves.end() && !leaf->second.empty())
        out.back().rail_leaves[rail] = leaf->second;
  }
  return out;
}

void ReadModel::CapDestinations(NodeState& st, size_t before) {
  // Only a commit that added pairs can take a node over the cap: the check
  // costs nothing while a node's destinations stay the same.
  if (st.pairs.size() <= before) return;
  const size_t dropped = st.KeepNewestDestinations(options_.max_destinations_per_node);
  if (dropped > 0 && options_.log)
    options_.log("node " + st.name.substr(0, 128) + " named more than " +
                 std::to_string(options_.max_destinations_per_node) + " probe destinations: the " +
                 std::to_string(dropped) +
                 " reported least recently left memory (their summaries stay in the database; "
                 "--max-destinations-per-node)");
}

std::vector<std::shared_ptr<const NodeState>> ReadModel::TakeReplacedStates() {
  std::vector<std::shared_ptr<const NodeState>> out;
  std::lock_guard<std::mutex> lock(replaced_mu_);
  out.swap(replaced_);
  return out;
}

void ReadModel::WaitForPublishedSnapshot() {
  std::unique_lock<std::mutex> lock(publish_mu_);
  publish_cv_.wait(lock, [&] { return publishes_owed_ == 0; });
}

void ReadModel::PublishSnapshot(SnapshotUpdate& update) {
  if (!update.pending) return;
  std::vector<std::shared_ptr<const NodeState>> replaced;
  {
    std::map<std::string_view, NodeState*> by_name;
    for (const auto& st : update.states) by_name[st->name] = st.get();
    for (std::shared_ptr<const ProbeRow>& row : update.rows) {
      auto it = by_name.find(*row->src);
      if (it != by_name.end()) it->second->Apply(std::move(row));
    }
    // Earlier updates are published (one thread, commit order), so each
    // node's published pairs hold every older commit's.
    for (std::shared_ptr<NodeState>& st : update.states) {
      size_t before = 0;
      if (auto old = snapshot_.Node(st->name)) {
        before = old->pairs.size();
        st->MergeOlder(old->pairs);
        replaced.push_back(std::move(old));
      }
      CapDestinations(*st, before);
      snapshot_.PutNode(std::move(st));
    }
  }
  update = SnapshotUpdate{};
  replaced.clear();  // the replaced states are freed here, not on the writer
  {
    std::lock_guard<std::mutex> lock(publish_mu_);
    --publishes_owed_;
  }
  publish_cv_.notify_all();
}

}  // namespace rdmascope::collector
