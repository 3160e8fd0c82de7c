// Fetches what `rdmactl status` shows from a collector's REST API.
//
// Contract: one GET per endpoint (/api/v1/nodes, /ports, /probes/worst,
// /events?open=1) with a 2 s connect and 5 s read timeout. Any failure —
// unreachable, non-200, not JSON — is an error naming the URL and what to check.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace rdmascope::cli {

struct CollectorView {
  nlohmann::json nodes = nlohmann::json::array();        // /api/v1/nodes .nodes
  nlohmann::json ports = nlohmann::json::array();        // /api/v1/ports .ports
  nlohmann::json worst_pairs = nlohmann::json::array();  // /api/v1/probes/worst .pairs
  nlohmann::json open_events = nlohmann::json::array();  // /api/v1/events?open=1 .events
};

// url: "http://host:port" (no path).
Result<CollectorView> FetchCollectorView(const std::string& url, int worst_pairs);

}  // namespace rdmascope::cli
