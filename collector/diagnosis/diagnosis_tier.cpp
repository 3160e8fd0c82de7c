// SwitchTierVerdicts: leaf uplinks and spines as candidate sets (contract in
// diagnosis_tier.h).
#include "collector/diagnosis/diagnosis_tier.h"

#include <algorithm>
#include <cmath>
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

// The least excess of bad paths that stands out of chance: min_bad_paths,
// and three standard deviations of the bad paths `total` paths at `rate`
// would give (a few bad paths on a small leaf are noise, not an uplink).
double Noise(int64_t total, double rate, const Options& o) {
  const double n = static_cast<double>(total);
  return std::max(static_cast<double>(o.min_bad_paths), 3 * std::sqrt(n * rate * (1 - rate)));
}

bool TierBad(PathKind k) { return k == PathKind::kLoss || k == PathKind::kUnreachable || k == PathKind::kLatency; }

// True when no one node holds min_share of the paths' ends picked by `end`.
template <typename End>
bool Spread(const std::vector<size_t>& paths, End end, double min_share) {
  std::unordered_map<uint32_t, size_t> n;  // Input::names id -> paths
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
    Components();
    a_.assign(in.paths.size(), -1), b_.assign(in.paths.size(), -1);
    for (size_t i = 0; i < in.paths.size(); ++i) {
      const PathSummary& p = in.paths[i];
      if (!measured[i] || !p.Crosses().empty()) continue;
      auto a = leaf.find(f.SrcGroup(p)), b = leaf.find(f.DstGroup(p));
      if (a == leaf.end() || b == leaf.end() || tier_[static_cast<size_t>(a->second)] != tier_[static_cast<size_t>(b->second)])
        continue;
      a_[i] = a->second, b_[i] = b->second;
    }
  }

  std::vector<TierFinding> Run() {
    std::vector<TierFinding> out;
    while (Leaf(&out)) {
    }
    for (size_t t = 0; t < spines_.size(); ++t) Spines(t, &out);
    return out;
  }

 private:
  const Input& In() const { return *f_.input; }
  bool Bad(size_t i) const { return open_[i] && TierBad(f_.kind[i]); }

  // Leaves that share a spine are one tier (a plane): tier_ per leaf,
  // spines_ per tier (sorted).
  void Components() {
    const auto& leaves = In().tier_leaves;
    std::vector<size_t> up(leaves.size());
    for (size_t l = 0; l < up.size(); ++l) up[l] = l;
    auto root = [&](size_t l) {
      while (up[l] != l) l = up[l] = up[up[l]];
      return l;
    };
    std::unordered_map<std::string, size_t> first;  // spine -> a leaf on it
    for (size_t l = 0; l < leaves.size(); ++l)
      for (const std::string& s : leaves[l].spines) {
        auto [it, added] = first.try_emplace(s, l);
        if (!added) up[root(l)] = root(it->second);
      }
    std::unordered_map<size_t, size_t> id;  // root -> tier
    tier_.resize(leaves.size());
    for (size_t l = 0; l < leaves.size(); ++l) {
      auto [it, added] = id.try_emplace(root(l), spines_.size());
      if (added) spines_.emplace_back();
      tier_[l] = it->second;
      for (const std::string& s : leaves[l].spines)
        if (std::find(spines_[it->second].begin(), spines_[it->second].end(), s) == spines_[it->second].end())
          spines_[it->second].push_back(s);
    }
    for (auto& s : spines_) std::sort(s.begin(), s.end());
  }

  // per_leaf[l], and per_tier[t] summed over the tier's leaves (a cross-leaf path once).
  void Count(std::vector<Counts>* per_leaf, std::vector<Counts>* per_tier) const {
    per_leaf->assign(In().tier_leaves.size(), Counts());
    per_tier->assign(spines_.size(), Counts());
    for (size_t i = 0; i < a_.size(); ++i) {
      if (a_[i] < 0) continue;
      const bool bad = Bad(i);
      Counts& all = (*per_tier)[tier_[static_cast<size_t>(a_[i])]];
      if (a_[i] == b_[i]) {
        Counts& c = (*per_leaf)[static_cast<size_t>(a_[i])];
        ++c.inside, ++all.inside;
        c.inside_bad += bad, all.inside_bad += bad;
        continue;
      }
      ++all.cross;
      all.cross_bad += bad;
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
    std::vector<Counts> per, tiers;
    Count(&per, &tiers);
    int32_t best = -1;
    double best_excess = 0, best_rest = 0;
    std::vector<size_t> best_paths;
    for (size_t l = 0; l < per.size(); ++l) {
      const Counts& c = per[l];
      const Counts& all = tiers[tier_[l]];
      if (In().tier_leaves[l].uplinks.empty() || c.cross_bad < o_.min_bad_paths) continue;
      const double rest = Share(all.cross_bad - c.cross_bad, all.cross - c.cross);
      const double share = Share(c.cross_bad, c.cross);
      const double excess = static_cast<double>(c.cross_bad) - static_cast<double>(c.cross) * rest;
      if (excess < Noise(c.cross, rest, o_) || share < 2 * rest || share >= o_.min_share) continue;
      if (2 * Share(c.inside_bad, c.inside) > share) continue;
      if (excess <= best_excess) continue;
      const int32_t me = static_cast<int32_t>(l);
      std::vector<size_t> paths;
      for (size_t i = 0; i < a_.size(); ++i)
        if (a_[i] >= 0 && a_[i] != b_[i] && (a_[i] == me || b_[i] == me) && Bad(i)) paths.push_back(i);
      const auto& ps = In().paths;
      auto own = [&](size_t i) { return a_[i] == me ? ps[i].src : ps[i].dst; };
      auto peer = [&](size_t i) { return a_[i] == me ? ps[i].dst : ps[i].src; };
      if (!Spread(paths, own, o_.min_share) || !Spread(paths, peer, o_.min_share)) continue;
      best = me, best_excess = excess, best_rest = rest, best_paths = std::move(paths);
    }
    if (best < 0) return false;
    const TierLeaf& leaf = In().tier_leaves[static_cast<size_t>(best)];
    const Counts& c = per[static_cast<size_t>(best)];
    const Counts& all = tiers[tier_[static_cast<size_t>(best)]];
    TierFinding t;
    t.verdict.scope = "switch";
    t.verdict.subject = leaf.name;
    t.verdict.confidence = std::clamp(best_excess / static_cast<double>(c.cross_bad), 0.0, 1.0);
    const size_t k = leaf.uplinks.size();
    t.verdict.evidence.push_back(
        {{"what", "candidates"},
         {"links", leaf.uplinks},
         {"text", k == 1 ? leaf.name + "'s uplink" : "one of " + leaf.name + "'s " + std::to_string(k) + " uplinks"}});
    AddPathEvidence(f_, best_paths,
                    {{"element", "leaf_uplinks"},
                     {"cross_leaf", Ratio(c.cross_bad, c.cross)},
                     {"inside_leaf", Ratio(c.inside_bad, c.inside)},
                     {"other_cross_leaf", Ratio(all.cross_bad - c.cross_bad, all.cross - c.cross)},
                     {"rest_share", std::round(best_rest * 1e4) / 1e4}},
                    o_, &t.verdict);
    Explain(best_paths);
    t.paths = std::move(best_paths);
    out->push_back(std::move(t));
    return true;
  }

  // The spines of tier t.
  void Spines(size_t t, std::vector<TierFinding>* out) {
    const std::vector<std::string>& spines = spines_[t];
    if (spines.empty()) return;
    std::vector<Counts> per, tiers;
    Count(&per, &tiers);
    const Counts& all = tiers[t];
    const double share = Share(all.cross_bad, all.cross), inside = Share(all.inside_bad, all.inside);
    const double excess = static_cast<double>(all.cross_bad) - static_cast<double>(all.cross) * inside;
    if (all.cross_bad < o_.min_bad_paths || excess < Noise(all.cross, inside, o_) || share >= o_.min_share ||
        share < 2 * inside)
      return;
    size_t leaves = 0, hit = 0;
    for (size_t l = 0; l < per.size(); ++l) {
      const Counts& c = per[l];
      if (tier_[l] != t || c.cross == 0) continue;
      if (Share(c.cross_bad, c.cross) >= o_.min_share) return;  // one leaf cut off
      ++leaves;
      hit += c.cross_bad > 0 && Share(c.cross_bad, c.cross) >= share / 3;
    }
    if (leaves < 2 || static_cast<double>(hit) < o_.min_share * static_cast<double>(leaves)) return;
    std::vector<size_t> paths;
    for (size_t i = 0; i < a_.size(); ++i)
      if (a_[i] >= 0 && a_[i] != b_[i] && tier_[static_cast<size_t>(a_[i])] == t && Bad(i)) paths.push_back(i);
    // Either end of each path: no one host behind them all.
    std::vector<size_t> twice;
    twice.reserve(2 * paths.size());
    for (size_t i : paths) twice.push_back(i), twice.push_back(i | kOtherEnd);
    const auto& ps = In().paths;
    auto end = [&](size_t x) { return x & kOtherEnd ? ps[x & ~kOtherEnd].dst : ps[x].src; };
    if (!Spread(twice, end, o_.min_share / 2)) return;
    TierFinding v;
    v.verdict.scope = "switch";
    v.verdict.subject = spines.size() == 1    ? spines.front()
                        : spines_.size() == 1 ? std::string("spines")
                                              : "spines:" + spines.front() + ".." + spines.back();
    v.verdict.confidence = std::clamp(excess / static_cast<double>(all.cross_bad), 0.0, 1.0);
    v.verdict.evidence.push_back(
        {{"what", "candidates"},
         {"switches", spines},
         {"text", spines.size() == 1 ? "the spine " + spines.front()
                                     : "one of the " + std::to_string(spines.size()) + " spines"}});
    AddPathEvidence(f_, paths,
                    {{"element", "spines"},
                     {"cross_leaf", Ratio(all.cross_bad, all.cross)},
                     {"inside_leaf", Ratio(all.inside_bad, all.inside)},
                     {"leaves_hit", Ratio(static_cast<int64_t>(hit), static_cast<int64_t>(leaves))}},
                    o_, &v.verdict);
    Explain(paths);
    v.paths = std::move(paths);
    out->push_back(std::move(v));
  }

  static constexpr size_t kOtherEnd = size_t(1) << (sizeof(size_t) * 8 - 1);

  const Fleet& f_;
  const Options& o_;
  std::vector<bool> open_;
  std::vector<int32_t> a_, b_;                  // per path: the leaves of its ends (-1: not in a tier)
  std::vector<size_t> tier_;                    // per leaf: its tier
  std::vector<std::vector<std::string>> spines_;  // per tier: its spines, sorted
};

}  // namespace

void LeafGroupsAsSwitches(const Input& in, std::vector<Verdict>* verdicts) {
  if (in.tier_leaves.empty()) return;
  std::unordered_map<std::string, size_t> leaf;  // name -> index
  for (size_t l = 0; l < in.tier_leaves.size(); ++l) leaf.emplace(in.tier_leaves[l].name, l);
  std::vector<Verdict>& v = *verdicts;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].scope != "group" || !leaf.count(v[i].subject)) continue;
    v[i].scope = "switch";
    for (size_t j = 0; j < v.size(); ++j) {
      if (j == i || v[j].scope != "switch" || v[j].subject != v[i].subject) continue;
      for (auto& e : v[i].evidence) v[j].evidence.push_back(std::move(e));
      for (auto& p : v[i].paths) v[j].paths.push_back(std::move(p));
      v[j].confidence = std::max(v[j].confidence, v[i].confidence);
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(i--));
      break;
    }
  }
}

std::vector<TierFinding> SwitchTierVerdicts(const Fleet& f, const std::vector<bool>& measured,
                                            const std::vector<bool>& open, const Options& o) {
  if (f.input->tier_leaves.empty()) return {};
  return Tier(f, measured, open, o).Run();
}

}  // namespace rdmascope::collector::diagnosis
