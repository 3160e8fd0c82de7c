// CoverageOf (contract in diagnosis_coverage.h).
#include "collector/diagnosis/diagnosis_coverage.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
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
    std::map<std::pair<uint32_t, uint32_t>, std::unordered_set<uint32_t>> pairs;  // (A, B) -> sources in A
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
    if (a != b) rail->pairs[{a, b}].insert(src);
  }
  nlohmann::json out = {{"at_ms", at_ms}, {"report_interval_ms", report_interval_ms}, {"rails", nlohmann::json::array()}};
  for (const auto& [name, r] : rails) {
    std::unordered_map<uint32_t, int64_t> size;  // group -> members
    for (const std::vector<uint32_t>& of : r.member_of)
      for (uint32_t g : of) ++size[g];
    const int64_t count = static_cast<int64_t>(size.size());
    int64_t covered = 0;
    for (const auto& [pair, sources] : r.pairs) {
      const int64_t need = std::min<int64_t>(min_sources, size[pair.first]);
      if (static_cast<int64_t>(sources.size()) >= need) ++covered;
    }
    out["rails"].push_back({{"rail", name},
                            {"groups", count},
                            {"group_pairs", count * (count - 1)},
                            {"group_pairs_probed", r.pairs.size()},
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
