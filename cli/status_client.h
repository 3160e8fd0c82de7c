// Fetches what `rdmactl status` shows from a collector's REST API.
//
// Contract: one GET per endpoint (/api/v1/nodes, /ports, /probes/worst,
// /events?open=1) with a 2 s connect and 5 s read timeout. Any failure —
// unreachable, non-200, not JSON — is an error naming the URL and what to check.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace rdmascope::cli {

struct CollectorView {
  nlohmann::json nodes = nlohmann::json::array();        // /api/v1/nodes .nodes
  nlohmann::json ports = nlohmann::json::array();        // /api/v1/ports .ports
  nlohmann::json worst_pairs = nlohmann::json::array();  // /api/v1/probes/worst .pairs
  nlohmann::json open_events = nlohmann::json::array();  // /api/v1/events?open=1 .events
};

// GET url + path and return the body's `member` array; errors as above.
Result<nlohmann::json> FetchCollectorList(const std::string& url, const std::string& path, const char* member);

// Prints that the collector could not be asked (text, or JSON with --json)
// and returns 2, the exit code for it.
int PrintCollectorFailure(const std::string& url, const std::string& message, bool as_json);

// args[*i] is --collector URL or --collector=URL: sets *url (and steps *i past
// the value); false for any other argument.
bool TakeCollectorArg(const std::vector<std::string>& args, size_t* i, std::string* url);

// ms since the epoch as "YYYY-MM-DDTHH:MM:SSZ"; "n/a" when not a number.
std::string IsoTime(const nlohmann::json& ms);

// url: "http://host:port" (no path).
Result<CollectorView> FetchCollectorView(const std::string& url, int worst_pairs);

}  // namespace rdmascope::cli
