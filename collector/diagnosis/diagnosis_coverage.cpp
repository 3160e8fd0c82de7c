// CoverageOf (contract in diagnosis_coverage.h).
#include "collector/diagnosis/diagnosis_coverage.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/diagnosis/diagnosis_paths.h"

namespace rdmascope::collector {

nlohmann::json CoverageOf(const diagnosis::Input& in, const RouteCoverage& routes, int64_t at_ms,
                          int64_t report_interval_ms, int min_sources) {
  // Numbers, not names, per path: a pass covers about a million paths. A
  // node's number is its id in Input::names.
  std::unordered_map<std::string, uint32_t> group_id;  // group name -> id
  std::vector<std::string> groups;                     // id -> name
  auto group = [&](const std::string& name) {
    auto [it, added] = group_id.try_emplace(name, static_cast<uint32_t>(groups.size()));
    if (added) groups.push_back(name);
    return it->second;
  };
  constexpr uint32_t kNone = ~0u;
  std::vector<uint32_t> node_group(in.names.size(), kNone);  // node name id -> group id (NodeFacts::group)
  for (const diagnosis::NodeFacts& n : in.nodes) {
    const int64_t id = in.names.Find(n.name);
    if (id >= 0 && !n.group.empty()) node_group[static_cast<size_t>(id)] = group(n.group);
  }
  std::vector<uint32_t> named(in.group_names.size());
  for (size_t g = 0; g < in.group_names.size(); ++g) named[g] = group(in.group_names[g]);
  auto group_of = [&](int32_t path_group, uint32_t n) {
    return path_group >= 0 ? named[static_cast<size_t>(path_group)] : node_group[n];
  };
  struct Rail {
    // node name id -> the groups it is a member of on this rail (one, but
    // for a node whose devices on the rail hang on two leaves)
    std::vector<std::vector<uint32_t>> member_of;
    // The rail's groups numbered from 0 as seen; then (A, B) by those
    // numbers -> A's distinct sources probing B, the first min_sources of
    // them (enough to say covered); probed: the pair has a path.
    std::vector<uint32_t> local;                      // group id -> its number here (kNone: not seen)
    std::vector<uint32_t> global;                     // its number here -> group id
    struct Sources {
      bool probed = false;
      std::vector<uint32_t> first;
    };
    std::vector<std::vector<Sources>> pairs;          // [A][B]
    uint32_t Local(uint32_t g) {
      if (local.size() <= g) local.resize(g + 1, ~0u);
      if (local[g] == ~0u) local[g] = static_cast<uint32_t>(global.size()), global.push_back(g);
      return local[g];
    }
    void Probed(uint32_t a, uint32_t b, uint32_t src, int min_sources) {
      const uint32_t la = Local(a), lb = Local(b);
      if (pairs.size() <= la) pairs.resize(la + 1);
      if (pairs[la].size() <= lb) pairs[la].resize(lb + 1);
      Sources& s = pairs[la][lb];
      s.probed = true;
      if (static_cast<int>(s.first.size()) < min_sources &&
          std::find(s.first.begin(), s.first.end(), src) == s.first.end())
        s.first.push_back(src);
    }
  };
  std::map<std::string, Rail> rails;
  std::vector<Rail*> rail_of(in.names.size(), nullptr);  // rail name id -> its Rail
  auto member = [](Rail* rail, uint32_t group, uint32_t node) {
    std::vector<uint32_t>& of = rail->member_of[node];
    if (std::find(of.begin(), of.end(), group) == of.end()) of.push_back(group);
  };
  for (const diagnosis::PathSummary& p : in.paths) {
    if (!diagnosis::Measured(p)) continue;
    const uint32_t src = p.src, dst = p.dst;
    const uint32_t a = group_of(p.src_group, src), b = group_of(p.dst_group, dst);
    if (a == kNone || b == kNone) continue;
    Rail*& rail = rail_of[p.rail];
    if (!rail) rail = &rails[in.names[p.rail]], rail->member_of.resize(in.names.size());
    member(rail, a, src);
    member(rail, b, dst);
    if (a != b) rail->Probed(a, b, src, min_sources);
  }
  nlohmann::json out = {{"at_ms", at_ms}, {"report_interval_ms", report_interval_ms}, {"rails", nlohmann::json::array()}};
  for (const auto& [name, r] : rails) {
    std::unordered_map<uint32_t, int64_t> size;  // group -> members
    for (const std::vector<uint32_t>& of : r.member_of)
      for (uint32_t g : of) ++size[g];
    const int64_t count = static_cast<int64_t>(size.size());
    int64_t covered = 0, probed = 0;
    for (size_t la = 0; la < r.pairs.size(); ++la)
      for (const Rail::Sources& sources : r.pairs[la]) {
        if (!sources.probed) continue;
        ++probed;
        const int64_t need = std::min<int64_t>(min_sources, size[r.global[la]]);
        if (static_cast<int64_t>(sources.first.size()) >= need) ++covered;
      }
    out["rails"].push_back({{"rail", name},
                            {"groups", count},
                            {"group_pairs", count * (count - 1)},
                            {"group_pairs_probed", probed},
                            {"group_pairs_covered", covered},
                            {"min_sources", min_sources}});
  }
  out["fabric"] = {{"switch_links", routes.switch_links},
                   {"switch_links_crossed", routes.switch_links_crossed},
                   {"paths_routed", routes.paths_routed},
                   {"paths_unrouted", routes.paths_unrouted}};
  return out;
}

}  // namespace rdmascope::collector
