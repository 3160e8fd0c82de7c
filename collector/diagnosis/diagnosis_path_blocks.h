// The paths of a diagnosis pass, laid out node by node, each node's block
// kept from the pass before when nothing it was filled from has changed.
//
// Contract:
//  - Refill(nodes, since, fill, paths) leaves *paths holding, in the order of
//    `nodes`, one block per node: the node's block of the last Refill when
//    the node's state is the same object as then (the read model's states are
//    immutable once published) and every path of it ended at or after
//    `since`; else a block filled anew by fill(node, sink), which fills one
//    sink.Next() per path it keeps. A kept block's paths are the same values,
//    moved at most (in the steady state, where blocks keep their sizes, not
//    even that).
//  - Forget() drops every block: the next Refill fills all of them. Call it
//    when what fill writes would differ for an unchanged state (names or
//    groups numbered anew).
//  - The blocks keep no state alive (weak references, for identity only): a
//    state the read model dropped is destroyed at once; only its storage
//    waits for the next Refill to let go of the reference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/readmodel/read_snapshot.h"

namespace rdmascope::collector {

// Where fill puts a block's paths.
class BlockSink {
 public:
  // The next path of the block, to be filled: its errors and route cleared,
  // every other field left for the caller to set.
  diagnosis::PathSummary& Next();

 private:
  friend class PathBlocks;
  BlockSink(std::vector<diagnosis::PathSummary>* into, size_t at) : into_(into), next_(at) {}
  std::vector<diagnosis::PathSummary>* into_;
  size_t next_;
};

class PathBlocks {
 public:
  using Fill = std::function<void(const NodeState&, BlockSink&)>;

  void Refill(const std::vector<std::shared_ptr<const NodeState>>& nodes, int64_t since, const Fill& fill,
              std::vector<diagnosis::PathSummary>* paths);
  void Forget() { blocks_.clear(); }
  // Of the last Refill: blocks kept and blocks filled.
  size_t kept() const { return kept_; }
  size_t filled() const { return filled_; }

 private:
  struct Block {
    std::weak_ptr<const NodeState> state;
    size_t start = 0, count = 0;
    int64_t oldest_end = INT64_MAX;  // the oldest interval_end of its paths
  };
  std::unordered_map<std::string, Block> blocks_;  // by node name
  std::vector<diagnosis::PathSummary> spill_;      // blocks that cannot go straight to their place
  size_t kept_ = 0, filled_ = 0;
};

}  // namespace rdmascope::collector
