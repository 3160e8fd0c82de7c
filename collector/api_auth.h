// Bearer tokens for POST /api/v1/reports.
//
// Contract: a token file holds one token per line; surrounding whitespace is
// trimmed, empty lines and lines starting with '#' are skipped. A file with no
// token is an error (an empty file would lock every agent out silently).
// Comparison takes the same time whatever the position of the first mismatch.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace rdmascope::collector {

Result<std::vector<std::string>> LoadTokenFile(const std::string& path);

// True when `authorization` is "Bearer <t>" for a t in tokens.
bool BearerMatches(const std::string& authorization, const std::vector<std::string>& tokens);

}  // namespace rdmascope::collector
