// PathBlocks: a node's block of paths is kept while its state is the same
// object and in the window, moved when blocks before it changed size, and
// filled anew otherwise; the result is always what filling everything gives.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "collector/diagnosis/diagnosis_path_blocks.h"

namespace rdmascope::collector {
namespace {

// A node state with `n` pairs whose newest rows end at `end` and sent
// = base + k (k-th pair): what the fill below copies into each path.
std::shared_ptr<const NodeState> State(const std::string& name, int n, int64_t end, int64_t base) {
  auto st = std::make_shared<NodeState>();
  st->name = name;
  for (int k = 0; k < n; ++k) {
    auto row = std::make_shared<ProbeRow>();
    row->interval_end = end;
    row->sent = base + k;
    st->pairs[PairKey{Intern(name + "-peer" + std::to_string(k)), nullptr, Intern("ud")}].newest = std::move(row);
  }
  return st;
}

struct Filled {
  int64_t sent, end;
  bool operator==(const Filled& o) const { return sent == o.sent && end == o.end; }
};

class PathBlocksTest : public ::testing::Test {
 protected:
  PathBlocks blocks_;
  std::vector<diagnosis::PathSummary> paths_;
  int64_t since_ = 0;
  int fills_ = 0;

  // Copies each in-window row; counts the nodes filled.
  PathBlocks::Fill Fill() {
    return [this](const NodeState& node, BlockSink& sink) {
      ++fills_;
      for (const auto& [key, entry] : node.pairs) {
        if (entry.newest->interval_end < since_) continue;
        diagnosis::PathSummary& p = sink.Next();
        p.sent = entry.newest->sent, p.interval_end_ms = entry.newest->interval_end;
      }
    };
  }
  std::vector<Filled> Refill(const std::vector<std::shared_ptr<const NodeState>>& nodes) {
    fills_ = 0;
    blocks_.Refill(nodes, since_, Fill(), &paths_);
    std::vector<Filled> out;
    for (const auto& p : paths_) out.push_back({p.sent, p.interval_end_ms});
    return out;
  }
  // What filling every node gives.
  std::vector<Filled> Fresh(const std::vector<std::shared_ptr<const NodeState>>& nodes) {
    PathBlocks none;
    std::vector<diagnosis::PathSummary> paths;
    none.Refill(nodes, since_, Fill(), &paths);
    std::vector<Filled> out;
    for (const auto& p : paths) out.push_back({p.sent, p.interval_end_ms});
    return out;
  }
};

TEST_F(PathBlocksTest, KeepsUnchangedStatesInPlace) {
  std::vector<std::shared_ptr<const NodeState>> nodes = {State("a", 3, 100, 0), State("b", 2, 100, 10),
                                                          State("c", 4, 100, 20)};
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(blocks_.filled(), 3u);
  const diagnosis::PathSummary* data = paths_.data();
  paths_[3].errors_by_status["marker"] = 1;  // a kept path is the same object: its contents stay
  EXPECT_EQ(Refill(nodes).size(), 9u);
  EXPECT_EQ(blocks_.kept(), 3u);
  EXPECT_EQ(fills_, 0);
  EXPECT_EQ(paths_.data(), data);
  EXPECT_EQ(paths_[3].errors_by_status.count("marker"), 1u);

  nodes[1] = State("b", 2, 100, 30);  // a new state of the same size: only it is filled
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(fills_, 1);
  EXPECT_EQ(paths_[3].errors_by_status.count("marker"), 0u);  // its path was filled anew, cleared first
}

TEST_F(PathBlocksTest, MovesKeptBlocksWhenAnEarlierOneGrowsOrShrinks) {
  std::vector<std::shared_ptr<const NodeState>> nodes = {State("a", 3, 100, 0), State("b", 2, 100, 10),
                                                          State("c", 4, 100, 20), State("d", 1, 100, 40)};
  Refill(nodes);
  nodes[0] = State("a", 6, 100, 50);  // grows: b, c, d move right
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(fills_, 1);
  EXPECT_EQ(blocks_.kept(), 3u);
  nodes[1] = State("b", 0, 100, 0);  // shrinks to nothing: c, d move left
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(fills_, 1);
  nodes[2] = State("c", 9, 100, 60);  // grows between kept blocks: filled aside, then placed
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(fills_, 1);
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(fills_, 0);
}

TEST_F(PathBlocksTest, DroppedNodesAndTheWindowRefill) {
  std::vector<std::shared_ptr<const NodeState>> nodes = {State("a", 3, 100, 0), State("b", 2, 200, 10),
                                                          State("c", 4, 300, 20)};
  Refill(nodes);
  // b leaves the list (a silent node): a and c are kept, c moves left.
  std::vector<std::shared_ptr<const NodeState>> without_b = {nodes[0], nodes[2]};
  EXPECT_EQ(Refill(without_b), Fresh(without_b));
  EXPECT_EQ(fills_, 0);
  // b's same state comes back: it was dropped, so it is filled.
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(fills_, 1);
  // The window passes a's rows (ended at 100): a is filled, and keeps none.
  since_ = 150;
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(fills_, 1);
  EXPECT_EQ(paths_.size(), 6u);
  blocks_.Forget();
  EXPECT_EQ(Refill(nodes), Fresh(nodes));
  EXPECT_EQ(fills_, 3);
}

}  // namespace
}  // namespace rdmascope::collector
