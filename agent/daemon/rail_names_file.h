// The rail names a node has given its ports, kept on disk so that a restart
// names every port as before (rails.h: a port keeps its earlier name).
//
// Contract:
// - The file is JSON: {"rails": [{"name": "0", "device": "rxe0", "port": 1}, ...]},
//   at most kMaxRailNames entries, names and devices as rails.h allows.
// - LoadRailNames: an absent file is no names (ok); a file that cannot be
//   read or parsed, or an entry that is not valid, is an error naming the
//   file and what is wrong (the caller logs it and starts without names).
// - SaveRailNames writes the whole list atomically (a temp file in the same
//   directory, fsync, rename): after a crash the file is the old list or the
//   new one, never a mix. It creates the directory when missing. Entries
//   past kMaxRailNames are not written.
// - MergeRailNames: `current` (the rails as named now) first, then every
//   remembered port that `current` does not name: the `previous` list for
//   ComputeRails, in which the first claim of a name wins.
#pragma once

#include <string>
#include <vector>

#include "agent/daemon/rails.h"
#include "common/status.h"

namespace rdmascope::agent {

inline constexpr size_t kMaxRailNames = 256;

Result<std::vector<RailSpec>> LoadRailNames(const std::string& path);
Status SaveRailNames(const std::string& path, const std::vector<RailSpec>& names);
std::vector<RailSpec> MergeRailNames(const std::vector<RailSpec>& current, const std::vector<RailSpec>& remembered);

}  // namespace rdmascope::agent
