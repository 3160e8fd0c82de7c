// What the probes of one diagnosis pass covered: per rail, the ordered group
// pairs probed and by how many distinct sources; the fabric's inter-switch
// cables crossed (where routes are known). Served by GET /api/v1/coverage.
//
// Contract: a pure function of the pass's input (paths measured: run and
// sent probes or saw errors) and its route coverage. Shape:
// {"at_ms","report_interval_ms","rails":[{"rail","groups","group_pairs",
// "group_pairs_probed","group_pairs_covered","min_sources"}],"fabric":
// {"switch_links","switch_links_crossed","paths_routed","paths_unrouted"}}
// (the worker adds the link coverage to "fabric": diagnosis_link_targets.h).
// A group pair (A, B), A != B, is covered when min(min_sources, |A|)
// distinct sources of A measured a path to B; groups are the paths' ends'
// groups on their rail (diagnosis.h), nodes without any group left out.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_routes.h"

namespace rdmascope::collector {

nlohmann::json CoverageOf(const diagnosis::Input& in, const RouteCoverage& routes, int64_t at_ms,
                          int64_t report_interval_ms, int min_sources = 3);

}  // namespace rdmascope::collector
