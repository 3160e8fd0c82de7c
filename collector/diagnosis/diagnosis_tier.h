// Diagnosis internals: the switch tier of a fabric whose forwarding the
// collector cannot see (RoCE's ECMP), named with its candidate set (rule 3b
// of diagnosis.h), from the leaves and uplinks of the topology file
// (Input::tier_leaves, Input::tier_spines).
//
// Contract (what ECMP lets the vote conclude):
//  - Only measured paths without a route (PathSummary::crosses empty) whose
//    two ends' groups are tier leaves count; a path is cross-leaf when its
//    ends' leaves differ, else inside its leaf. Bad here: open and of kind
//    loss, unreachable or latency (host_busy, rnr and access are the
//    hosts').
//  - A leaf L: its cross-leaf paths have at least min_bad_paths bad ones
//    beyond what the bad share of the cross-leaf paths not touching L
//    predicts, their bad share is at least twice that share and under
//    min_share, L's paths inside it are at most half as bad as its
//    cross-leaf ones, and the bad ones spread over hosts at both ends (no
//    host of L, and no peer, holds min_share of them). The leaf with the
//    most such excess is named first, its bad cross-leaf paths explained,
//    and the others are judged again: scope "switch", subject L, evidence
//    {"what": "candidates", "links": its uplinks, "text": "one of L's k
//    uplinks"}. A leaf without uplinks in the file is never named here.
//  - Then the spines: the bad cross-leaf paths left are at least
//    min_bad_paths beyond what the share inside the leaves predicts, their
//    share is under min_share and at least twice the share inside the
//    leaves, min_share of the leaves with cross-leaf paths have a bad share
//    of at least a third of the fleet's, and no host holds min_share of
//    them: scope "switch", subject "spines" (the spine's name when the file
//    has one), evidence {"what": "candidates", "switches": the spines,
//    "text": "one of the k spines"}.
//  - Pure: the caller emits each finding (Finish, explaining its paths).
#pragma once

#include <cstddef>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_paths.h"

namespace rdmascope::collector::diagnosis {

struct TierFinding {
  Verdict verdict;           // scope, subject, confidence, evidence (kind and severity: Finish)
  std::vector<size_t> paths;  // the bad paths it explains
};

// measured, open: per path (open: bad and not yet explained).
std::vector<TierFinding> SwitchTierVerdicts(const Fleet& f, const std::vector<bool>& measured,
                                            const std::vector<bool>& open, const Options& o);

}  // namespace rdmascope::collector::diagnosis
