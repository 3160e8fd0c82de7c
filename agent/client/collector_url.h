// The collector's address as the agent's reporter and pinglist client use it.
//
// Contract: ParseCollectorUrl accepts "http://HOST[:PORT][/PREFIX]" and
// "https://..." (HOST may be a bracketed IPv6 literal). A trailing "/" is
// dropped from PREFIX. Anything else is an error naming the URL and the part
// that is wrong.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace rdmascope::client {

struct CollectorUrl {
  std::string scheme_host_port;  // "http://collector:8080", what httplib::Client takes
  std::string path_prefix;       // "" or "/rdmascope"; API paths are appended to it
};

Result<CollectorUrl> ParseCollectorUrl(const std::string& url);

// A list of collectors sharing one database, in the agent's order of
// preference: URLs separated by commas (blanks around them ignored), each as
// ParseCollectorUrl takes it; an empty item or a repeated URL is an error
// naming it.
Result<std::vector<CollectorUrl>> ParseCollectorUrls(const std::string& list);

}  // namespace rdmascope::client
