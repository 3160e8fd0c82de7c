// PathBlocks (contract in diagnosis_path_blocks.h).
#include "collector/diagnosis/diagnosis_path_blocks.h"

#include <algorithm>
#include <iterator>

namespace rdmascope::collector {
namespace {

bool SameObject(const std::weak_ptr<const NodeState>& a, const std::shared_ptr<const NodeState>& b) {
  return !a.owner_before(b) && !b.owner_before(a);
}

}  // namespace

diagnosis::PathSummary& BlockSink::Next() {
  if (into_->size() <= next_) into_->resize(next_ + 1);
  diagnosis::PathSummary& p = (*into_)[next_++];
  p.errors_by_status.clear();
  p.crosses.clear();
  p.routed = nullptr;
  return p;
}

void PathBlocks::Refill(const std::vector<std::shared_ptr<const NodeState>>& nodes, int64_t since, const Fill& fill,
                        std::vector<diagnosis::PathSummary>* paths) {
  // Which nodes keep their block, and for each node the old start of the
  // first kept block from it on: a block filled in place must end before it
  // (that block's paths are still there, to be moved).
  std::vector<const Block*> kept(nodes.size(), nullptr);
  std::vector<size_t> kept_from(nodes.size() + 1, SIZE_MAX);
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto it = blocks_.find(nodes[i]->name);
    if (it != blocks_.end() && SameObject(it->second.state, nodes[i]) && it->second.oldest_end >= since &&
        it->second.start + it->second.count <= paths->size())
      kept[i] = &it->second;
  }
  for (size_t i = nodes.size(); i-- > 0;) kept_from[i] = kept[i] ? kept[i]->start : kept_from[i + 1];
  size_t pairs = 0;
  for (const auto& n : nodes) pairs += n->pairs.size();
  // A pinglist that adds targets then moves the paths once, not at every
  // step (pages not filled are not touched).
  diagnosis::RoomForPaths(*paths, std::max(paths->size(), pairs));

  struct Deferred {
    size_t from, count, to;  // spill_[from, from + count) -> (*paths)[to, ...)
  };
  std::vector<Deferred> deferred;
  std::unordered_map<std::string, Block> next;
  next.reserve(nodes.size());
  spill_.clear();
  kept_ = filled_ = 0;
  size_t w = 0;  // where the next block goes
  for (size_t i = 0; i < nodes.size(); ++i) {
    Block b;
    b.state = nodes[i];
    if (const Block* k = kept[i]) {
      auto from = paths->begin() + static_cast<std::ptrdiff_t>(k->start);
      auto end = from + static_cast<std::ptrdiff_t>(k->count);
      if (k->start > w) {
        std::move(from, end, paths->begin() + static_cast<std::ptrdiff_t>(w));  // to the left: nothing kept is there
      } else if (k->start < w) {  // to the right, over blocks not moved yet: by way of the spill
        deferred.push_back({spill_.size(), k->count, w});
        spill_.insert(spill_.end(), std::make_move_iterator(from), std::make_move_iterator(end));
      }
      b.count = k->count, b.oldest_end = k->oldest_end;
      ++kept_;
    } else {
      const bool in_place = w + nodes[i]->pairs.size() <= kept_from[i + 1];
      std::vector<diagnosis::PathSummary>* into = in_place ? paths : &spill_;
      const size_t at = in_place ? w : spill_.size();
      BlockSink sink(into, at);
      fill(*nodes[i], sink);
      b.count = sink.next_ - at;
      for (size_t k = at; k < sink.next_; ++k) b.oldest_end = std::min(b.oldest_end, (*into)[k].interval_end_ms);
      if (!in_place) deferred.push_back({at, b.count, w});
      ++filled_;
    }
    b.start = w;
    w += b.count;
    next.emplace(nodes[i]->name, std::move(b));
  }
  // Every kept block has left its old place: the spilled ones go to theirs.
  if (paths->size() < w) paths->resize(w);
  for (const Deferred& d : deferred)
    std::move(spill_.begin() + static_cast<std::ptrdiff_t>(d.from),
              spill_.begin() + static_cast<std::ptrdiff_t>(d.from + d.count),
              paths->begin() + static_cast<std::ptrdiff_t>(d.to));
  paths->resize(w);
  spill_.clear();
  if (spill_.capacity() > paths->size() / 8) spill_.shrink_to_fit();  // a rare reshuffle's memory is not kept
  blocks_ = std::move(next);
}

}  // namespace rdmascope::collector
