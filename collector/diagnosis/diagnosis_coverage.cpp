// CoverageOf (contract in diagnosis_coverage.h).
#include "collector/diagnosis/diagnosis_coverage.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "collector/diagnosis/diagnosis_paths.h"

namespace rdmascope::collector {

nlohmann::json CoverageOf(const diagnosis::Input& in, const RouteCoverage& routes, int64_t at_ms,
                          int64_t report_interval_ms, int min_sources) {
  std::map<std::string, std::string> node_group;
  for (const diagnosis::NodeFacts& n : in.nodes) node_group[n.name] = n.group;
  struct Rail {
    std::map<std::string, std::set<std::string>> members;                    // group -> nodes
    std::map<std::pair<std::string, std::string>, std::set<std::string>> sources;  // (A, B) -> sources in A
  };
  std::map<std::string, Rail> rails;
  for (const diagnosis::PathSummary& p : in.paths) {
    if (!diagnosis::Measured(p)) continue;
    const std::string a = p.src_group.empty() ? node_group[p.src] : p.src_group;
    const std::string b = p.dst_group.empty() ? node_group[p.dst] : p.dst_group;
    if (a.empty() || b.empty()) continue;
    Rail& r = rails[p.rail];
    r.members[a].insert(p.src);
    r.members[b].insert(p.dst);
    if (a != b) r.sources[{a, b}].insert(p.src);
  }
  nlohmann::json out = {{"at_ms", at_ms}, {"report_interval_ms", report_interval_ms}, {"rails", nlohmann::json::array()}};
  for (const auto& [name, r] : rails) {
    const int64_t groups = static_cast<int64_t>(r.members.size());
    int64_t covered = 0;
    for (const auto& [pair, sources] : r.sources) {
      const int64_t need = std::min<int64_t>(min_sources, static_cast<int64_t>(r.members.at(pair.first).size()));
      if (static_cast<int64_t>(sources.size()) >= need) ++covered;
    }
    out["rails"].push_back({{"rail", name},
                            {"groups", groups},
                            {"group_pairs", groups * (groups - 1)},
                            {"group_pairs_probed", r.sources.size()},
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
