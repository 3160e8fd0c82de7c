// SwitchTierVerdicts: leaf uplinks and spines as candidate sets (contract in
// diagnosis_tier.h).
#include "collector/diagnosis/diagnosis_tier.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace rdmascope::collector::diagnosis {
namespace {

using nlohmann::json;

double Share(int64_t bad, int64_t total) {
  return total > 0 ? static_cast<double>(bad) / static_cast<double>(total) : 0;
}

std::string Ratio(int64_t bad, int64_t total) { return std::to_string(bad) + "/" + std::to_string(total); }

struct Counts {
  int64_t cross = 0, cross_bad = 0, inside = 0, inside_bad = 0;
};

bool TierBad(PathKind k) { return k == PathKind::kLoss || k == PathKind::kUnreachable || k == PathKind::kLatency; }

// True when no one node holds min_share of the paths' ends picked by `end`.
template <typename End>
bool Spread(const std::vector<size_t>& paths, End end, double min_share) {
  std::unordered_map<std::string, size_t> n;
  size_t top = 0;
  for (size_t i : paths) top = std::max(top, ++n[end(i)]);
  return n.size() > 1 && static_cast<double>(top) < min_share * static_cast<double>(paths.size());
}

class Tier {
 public:
  Tier(const Fleet& f, const std::vector<bool>& measured, const std::vector<bool>& open, const Options& o)
      : f_(f), o_(o), open_(open) {
    const Input& in = *f.input;
    std::unordered_map<std::string, int32_t> leaf;
    for (size_t l = 0; l < in.tier_leaves.size(); ++l) leaf.emplace(in.tier_leaves[l].name, static_cast<int32_t>(l));
    a_.assign(in.paths.size(), -1), b_.assign(in.paths.size(), -1);
    for (size_t i = 0; i < in.paths.size(); ++i) {
      const PathSummary& p = in.paths[i];
      if (!measured[i] || !p.crosses.empty()) continue;
      auto a = leaf.find(f.SrcGroup(p)), b = leaf.find(f.DstGroup(p));
      if (a == leaf.end() || b == leaf.end()) continue;
      a_[i] = a->second, b_[i] = b->second;
    }
  }

  std::vector<TierFinding> Run() {
    std::vector<TierFinding> out;
    while (Leaf(&out)) {
    }
    Spines(&out);
    return out;
  }

 private:
  const Input& In() const { return *f_.input; }
  bool Bad(size_t i) const { return open_[i] && TierBad(f_.kind[i]); }

  void Count(std::vector<Counts>* per_leaf, Counts* all) const {
    per_leaf->assign(In().tier_leaves.size(), Counts());
    for (size_t i = 0; i < a_.size(); ++i) {
      if (a_[i] < 0) continue;
      const bool bad = Bad(i);
      if (a_[i] == b_[i]) {
        Counts& c = (*per_leaf)[static_cast<size_t>(a_[i])];
        ++c.inside, ++all->inside;
        c.inside_bad += bad, all->inside_bad += bad;
        continue;
      }
      ++all->cross;
      all->cross_bad += bad;
      for (int32_t l : {a_[i], b_[i]}) {
        Counts& c = (*per_leaf)[static_cast<size_t>(l)];
        ++c.cross;
        c.cross_bad += bad;
      }
    }
  }

  void Explain(const std::vector<size_t>& paths) {
    for (size_t i : paths) open_[i] = false;
  }

  // One leaf's uplinks named; false when no leaf qualifies.
  bool Leaf(std::vector<TierFinding>* out) {
    std::vector<Counts> per;
    Counts all;
    Count(&per, &all);
    int32_t best = -1;
    double best_excess = 0;
    std::vector<size_t> best_paths;
    for (size_t l = 0; l < per.size(); ++l) {
      const Counts& c = per[l];
      if (In().tier_leaves[l].uplinks.empty() || c.cross_bad < o_.min_bad_paths) continue;
      const double rest = Share(all.cross_bad - c.cross_bad, all.cross - c.cross);
      const double share = Share(c.cross_bad, c.cross);
      const double excess = static_cast<double>(c.cross_bad) - static_cast<double>(c.cross) * rest;
      if (excess < o_.min_bad_paths || share < 2 * rest || share >= o_.min_share) continue;
      if (2 * Share(c.inside_bad, c.inside) > share) continue;
      if (excess <= best_excess) continue;
      std::vector<size_t> paths;
      for (size_t i = 0; i < a_.size(); ++i)
        if (a_[i] >= 0 && a_[i] != b_[i] && (a_[i] == static_cast<int32_t>(l) || b_[i] == static_cast<int32_t>(l)) &&
            Bad(i))
          paths.push_back(i);
      const auto& paths_ = In().paths;
      const int32_t me = static_cast<int32_t>(l);
      auto own = [&](size_t i) { return a_[i] == me ? paths_[i].src : paths_[i].dst; };
      auto peer = [&](size_t i) { return a_[i] == me ? paths_[i].dst : paths_[i].src; };
      if (!Spread(paths, own, o_.min_share) || !Spread(paths, peer, o_.min_share)) continue;
      best = me, best_excess = excess, best_paths = std::move(paths);
    }
    if (best < 0) return false;
    const TierLeaf& leaf = In().tier_leaves[static_cast<size_t>(best)];
    const Counts& c = per[static_cast<size_t>(best)];
    const double rest = Share(all.cross_bad - c.cross_bad, all.cross - c.cross);
    TierFinding t;
    t.verdict.scope = "switch";
    t.verdict.subject = leaf.name;
    t.verdict.confidence = std::clamp(best_excess / static_cast<double>(c.cross_bad), 0.0, 1.0);
    const size_t k = leaf.uplinks.size();
    t.verdict.evidence.push_back(
        {{"what", "candidates"},
         {"links", leaf.uplinks},
         {"text", k == 1 ? leaf.name + "'s uplink" : "one of " + leaf.name + "'s " + std::to_string(k) + " uplinks"}});
    AddPathEvidence(f_,
                    best_paths,
                    {{"element", "leaf_uplinks"},
                     {"cross_leaf", Ratio(c.cross_bad, c.cross)},
                     {"inside_leaf", Ratio(c.inside_bad, c.inside)},
                     {"other_cross_leaf", Ratio(all.cross_bad - c.cross_bad, all.cross - c.cross)},
                     {"rest_share", rest}},
                    o_, &t.verdict);
    Explain(best_paths);
    t.paths = std::move(best_paths);
    out->push_back(std::move(t));
    return true;
  }

  void Spines(std::vector<TierFinding>* out) {
    const auto& spines = In().tier_spines;
    if (spines.empty()) return;
    std::vector<Counts> per;
    Counts all;
    Count(&per, &all);
    const double share = Share(all.cross_bad, all.cross), inside = Share(all.inside_bad, all.inside);
    const double excess = static_cast<double>(all.cross_bad) - static_cast<double>(all.cross) * inside;
    if (all.cross_bad < o_.min_bad_paths || excess < o_.min_bad_paths || share >= o_.min_share || share < 2 * inside)
      return;
    size_t leaves = 0, hit = 0;
    for (const Counts& c : per) {
      if (c.cross == 0) continue;
      ++leaves;
      hit += c.cross_bad > 0 && Share(c.cross_bad, c.cross) >= share / 3;
    }
    if (leaves < 2 || static_cast<double>(hit) < o_.min_share * static_cast<double>(leaves)) return;
    std::vector<size_t> paths;
    for (size_t i = 0; i < a_.size(); ++i)
      if (a_[i] >= 0 && a_[i] != b_[i] && Bad(i)) paths.push_back(i);
    // Either end of each path: no one host behind them all.
    std::vector<size_t> twice;
    twice.reserve(2 * paths.size());
    for (size_t i : paths) twice.push_back(i), twice.push_back(i | kOtherEnd);
    const auto& ps = In().paths;
    auto end = [&](size_t x) { return x & kOtherEnd ? ps[x & ~kOtherEnd].dst : ps[x].src; };
    if (!Spread(twice, end, o_.min_share / 2)) return;
    TierFinding t;
    t.verdict.scope = "switch";
    t.verdict.subject = spines.size() == 1 ? spines.front() : "spines";
    t.verdict.confidence = std::clamp(excess / static_cast<double>(all.cross_bad), 0.0, 1.0);
    t.verdict.evidence.push_back(
        {{"what", "candidates"},
         {"switches", spines},
         {"text", spines.size() == 1 ? "the spine " + spines.front()
                                     : "one of the " + std::to_string(spines.size()) + " spines"}});
    AddPathEvidence(f_, paths,
                    {{"element", "spines"},
                     {"cross_leaf", Ratio(all.cross_bad, all.cross)},
                     {"inside_leaf", Ratio(all.inside_bad, all.inside)},
                     {"leaves_hit", Ratio(static_cast<int64_t>(hit), static_cast<int64_t>(leaves))}},
                    o_, &t.verdict);
    Explain(paths);
    t.paths = std::move(paths);
    out->push_back(std::move(t));
  }

  static constexpr size_t kOtherEnd = size_t(1) << (sizeof(size_t) * 8 - 1);

  const Fleet& f_;
  const Options& o_;
  std::vector<bool> open_;
  std::vector<int32_t> a_, b_;  // per path: the leaves of its ends (-1: not in the tier)
};

}  // namespace

std::vector<TierFinding> SwitchTierVerdicts(const Fleet& f, const std::vector<bool>& measured,
                                            const std::vector<bool>& open, const Options& o) {
  if (f.input->tier_leaves.empty()) return {};
  return Tier(f, measured, open, o).Run();
}

}  // namespace rdmascope::collector::diagnosis
