// Diagnosis internals: the switch tier of a fabric whose forwarding the
// collector cannot see (RoCE's ECMP), named with its candidate set (rule 3b
// of diagnosis.h), from the leaves and uplinks of the topology file
// (Input::tier_leaves: the leaves, their uplinks and the spines at their ends).
//
// Contract (what ECMP lets the vote conclude):
//  - Only measured paths without a route (PathSummary::Crosses() empty) whose
//    two ends' groups are tier leaves count; a path is cross-leaf when its
//    ends' leaves differ, else inside its leaf. Bad here: open and of kind
//    loss, unreachable or latency (host_busy, rnr and access are the
//    hosts').
//  - Tiers: leaves that share a spine, through any chain of leaves, are one
//    tier (a plane of a rail-optimised fabric); a path between two tiers
//    does not count, and each tier is judged alone.
//  - "Beyond what a share predicts" below: by min_bad_paths and by three
//    standard deviations of the bad paths that share would give by chance.
//  - A leaf L: its cross-leaf paths have bad ones beyond what the bad share
//    of its tier's cross-leaf paths not touching L predicts, their bad share is at least twice that share and under
//    min_share, L's paths inside it are at most half as bad as its
//    cross-leaf ones, and the bad ones spread over hosts at both ends (no
//    host of L, and no peer, holds min_share of them). The leaf with the
//    most such excess is named first, its bad cross-leaf paths explained,
//    and the others are judged again: scope "switch", subject L, evidence
//    {"what": "candidates", "links": its uplinks, "text": "one of L's k
//    uplinks"}. A leaf without uplinks in the file is never named here.
//  - Then the spines of each tier: its bad cross-leaf paths left are
//    beyond what the share inside its leaves predicts, their
//    share is under min_share and at least twice the share inside the
//    leaves, min_share of the leaves with cross-leaf paths have a bad share
//    of at least a third of the fleet's, and no host holds min_share of
//    them: scope "switch", subject "spines" ("spines:FIRST..LAST" of its
//    spines when the file has several tiers; the spine's name when the tier
//    has one), evidence {"what": "candidates", "switches": the spines,
//    "text": "one of the k spines"}.
//    No spine verdict when some leaf has min_share of its cross-leaf paths
//    bad: that is one leaf cut off, not a spine.
//  - LeafGroupsAsSwitches: with a topology file, a group is a leaf, so a
//    verdict on a group that is a tier leaf (the greedy vote's: most of the
//    leaf's paths bad) is named scope "switch" too; a switch verdict on that
//    leaf made in the same pass takes its evidence and paths instead.
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

// in.tier_leaves: see the contract above; verdicts renamed or merged in place.
void LeafGroupsAsSwitches(const Input& in, std::vector<Verdict>* verdicts);

}  // namespace rdmascope::collector::diagnosis
