// Bearer tokens for POST /api/v1/reports, scoped to the node they may report as.
//
// Contract: a token file holds one entry per line:
//   `NODE TOKEN`        a node token: reports only as NODE, without a fabric
//                       sweep, and reads only NODE's pinglist;
//   `sweep NODE TOKEN`  the same, plus the sweep role: its reports may carry
//                       a fabric sweep (the report's "fabric" part);
//   `* TOKEN`           the fleet token: any node, sweeps, every address
//                       (labs, tests, trusted automation).
// Surrounding whitespace is trimmed; empty lines and lines starting with '#'
// are skipped. Any other line is an error naming FILE:LINE: a single word
// (once a silent fleet token: the fleet must be written `* TOKEN`), `sweep`
// with one word after it, more than three words, a three-word line not
// starting with `sweep`, `sweep * TOKEN`, a token shorter than 8 characters,
// a token given on two lines. A file with no token is an error too (it would
// lock every agent out silently). Comparison takes the same time whatever the
// position of the first mismatch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace rdmascope::collector {

struct NodeToken {
  NodeToken(std::string fleet_token) : node("*"), token(std::move(fleet_token)) {}  // NOLINT: `* TOKEN`
  NodeToken(const char* fleet_token) : NodeToken(std::string(fleet_token)) {}       // NOLINT
  NodeToken(std::string node_name, std::string t, bool may_sweep = false)
      : node(std::move(node_name)), token(std::move(t)), sweep(may_sweep) {}
  std::string node;  // "*" for fleet-wide
  std::string token;
  bool sweep = false;  // `sweep NODE TOKEN`: may post fabric sweeps
};

// What a presented token may do.
struct TokenGrant {
  std::string node;    // the node it may report as, or "*"
  bool sweep = false;  // may post a fabric sweep (always true for "*")
  bool Fleet() const { return node == "*"; }
  bool MaySweep() const { return sweep || Fleet(); }
};

Result<std::vector<NodeToken>> LoadTokenFile(const std::string& path);

// The grant of the token in `authorization` ("Bearer <t>"); nullopt when it
// is no token of the table.
std::optional<TokenGrant> TokenGrantOf(const std::string& authorization, const std::vector<NodeToken>& tokens);

// True when `authorization` carries a token of the table (any scope).
bool BearerMatches(const std::string& authorization, const std::vector<NodeToken>& tokens);

// Read access (--read-token-file): true when `authorization` carries a token
// of `read_tokens`, as "Bearer <t>" (scripts, Prometheus) or as HTTP Basic
// with any user name and the token as password (browsers prompt for it).
bool ReadAuthorized(const std::string& authorization, const std::vector<NodeToken>& read_tokens);

}  // namespace rdmascope::collector
