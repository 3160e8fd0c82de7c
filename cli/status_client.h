// Fetches what `rdmactl status` and `rdmactl diagnose` show from a collector's REST API.
//
// Contract: one GET per endpoint (/api/v1/nodes, /ports, /probes/worst,
// /events?open=1, /diagnoses) with a 2 s connect and 5 s read timeout, over
// HTTP or HTTPS (certificate verified, see agent/client/collector_client.h), with a
// bearer read token when one is given. Any failure — unreachable, non-200,
// not JSON — is an error naming the URL and what to check.
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

// How rdmactl reaches a collector beyond its URL.
struct CollectorAccess {
  std::string ca_file;     // https: the CA of the collector's certificate; "" = system store
  std::string token_file;  // a read token (collector --read-token-file); "" = none sent
};

// GET url + path and return the body's `member` array; errors as above.
Result<nlohmann::json> FetchCollectorList(const std::string& url, const std::string& path, const char* member,
                                          const CollectorAccess& access = {});

// url: "http://host:port" or "https://host:port" (no path).
Result<CollectorView> FetchCollectorView(const std::string& url, int worst_pairs, const CollectorAccess& access = {});

// Prints that the collector could not be asked (text, or JSON with --json)
// and returns 2, the exit code for it.
int PrintCollectorFailure(const std::string& url, const std::string& message, bool as_json);

// args[*i] is --collector URL or --collector=URL: sets *url (and steps *i past
// the value); false for any other argument.
bool TakeCollectorArg(const std::vector<std::string>& args, size_t* i, std::string* url);

// Parses --ca-file FILE / --token-file FILE (and the --opt=VALUE forms) at
// args[*i]; true when it consumed them (advancing *i), false when args[*i] is
// another argument. A missing value is an error.
Result<bool> ParseCollectorAccessArg(const std::vector<std::string>& args, size_t* i, CollectorAccess* access);

// Help lines for those two options.
extern const char kCollectorAccessHelp[];

// ms since the epoch as "YYYY-MM-DDTHH:MM:SSZ"; "n/a" when not a number.
std::string IsoTime(const nlohmann::json& ms);

}  // namespace rdmascope::cli
