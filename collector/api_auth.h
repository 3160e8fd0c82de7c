// Bearer tokens for POST /api/v1/reports, scoped to the node they may report as.
//
// Contract: a token file holds one entry per line: `NODE TOKEN` (that token
// may report only as NODE) or `* TOKEN` (fleet-wide: labs, tests, trusted
// automation). A line with a single word is the older form of `* TOKEN` and is
// accepted as such. Surrounding whitespace is trimmed; empty lines and lines
// starting with '#' are skipped. A file with no token, a line with more than
// two words or a token shorter than 8 characters is an error naming the line
// (an empty file would lock every agent out silently). Comparison takes the
// same time whatever the position of the first mismatch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace rdmascope::collector {

struct NodeToken {
  NodeToken(std::string fleet_token) : node("*"), token(std::move(fleet_token)) {}  // NOLINT: `* TOKEN`
  NodeToken(const char* fleet_token) : NodeToken(std::string(fleet_token)) {}       // NOLINT
  NodeToken(std::string node_name, std::string t) : node(std::move(node_name)), token(std::move(t)) {}
  std::string node;  // "*" for fleet-wide
  std::string token;
};

Result<std::vector<NodeToken>> LoadTokenFile(const std::string& path);

// The scope of the token in `authorization` ("Bearer <t>"): the node it may
// report as, or "*"; nullopt when it is no token of the table.
std::optional<std::string> TokenScope(const std::string& authorization, const std::vector<NodeToken>& tokens);

// True when `authorization` carries a token of the table (any scope).
bool BearerMatches(const std::string& authorization, const std::vector<NodeToken>& tokens);

// Read access (--read-token-file): true when `authorization` carries a token
// of `read_tokens`, as "Bearer <t>" (scripts, Prometheus) or as HTTP Basic
// with any user name and the token as password (browsers prompt for it).
bool ReadAuthorized(const std::string& authorization, const std::vector<NodeToken>& read_tokens);

// True when a token of `scope` may report as `node`.
inline bool ScopeAllows(const std::string& scope, const std::string& node) { return scope == "*" || scope == node; }

}  // namespace rdmascope::collector
