// libFuzzer harness: the parts of a request the collector judges itself,
// each called directly (fast, deterministic; http_request_fuzzer sends the
// same through the real server). The input is lines:
//   METHOD / PATH / Authorization value / Date value / "Name: value" headers...
// and goes through GuardRequest (with the headers as its lookup),
// TokenGrantOf / BearerMatches / ReadAuthorized against a fixed token table,
// ParseHttpDate and MeasureClockSkew, and JsonNestingExceeds (whole input).
// Findings: a crash or sanitizer report; a refusal with a status outside
// 400..499; a token accepted that is not in the table; a parsed date whose
// formatting does not parse back to the same time.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/http/api_auth.h"
#include "collector/rules/clock_skew.h"
#include "collector/http/request_guard.h"
#include "common/http_date.h"

namespace {

using namespace rdmascope::collector;

const std::vector<NodeToken>& Tokens() {
  static const std::vector<NodeToken> t = {{"node-a", "node-token-0001"}, {"*", "fleet-token-0002"}};
  return t;
}

std::string Line(const std::string& text, size_t* at) {
  if (*at > text.size()) return "";
  size_t end = text.find('\n', *at);
  if (end == std::string::npos) end = text.size();
  std::string line = text.substr(*at, end - *at);
  *at = end + 1;
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t at = 0;
  const std::string method = Line(text, &at), path = Line(text, &at);
  const std::string authorization = Line(text, &at), date = Line(text, &at);
  std::map<std::string, std::string> headers;  // as the HTTP library keeps them: the first of a name wins here
  while (at <= text.size()) {
    const std::string h = Line(text, &at);
    const size_t colon = h.find(':');
    if (colon != std::string::npos) headers.emplace(h.substr(0, colon), h.substr(colon + 1));
  }
  auto refusal = GuardRequest(
      method, path,
      [&headers](const std::string& name) -> std::optional<std::string> {
        auto it = headers.find(name);
        if (it == headers.end()) return std::nullopt;
        return it->second;
      },
      64 << 10);
  if (refusal && (refusal->status < 400 || refusal->status > 499 || refusal->error.empty())) __builtin_trap();

  auto grant = TokenGrantOf(authorization, Tokens());
  std::optional<std::string> scope;
  if (grant) scope = grant->node;
  if (scope && *scope != "node-a" && *scope != "*") __builtin_trap();
  if (scope.has_value() != BearerMatches(authorization, Tokens())) __builtin_trap();
  if (scope && authorization.find("node-token-0001") == std::string::npos &&
      authorization.find("fleet-token-0002") == std::string::npos)
    __builtin_trap();
  (void)ReadAuthorized(authorization, Tokens());

  if (auto ms = rdmascope::ParseHttpDate(date)) {
    if (rdmascope::ParseHttpDate(rdmascope::FormatHttpDate(*ms)) != ms) __builtin_trap();
  }
  const nlohmann::json report = {{"generated_at_ms", int64_t{1'800'000'000'000}}};
  (void)MeasureClockSkew(report, date, 1'800'000'000'000, kDefaultClockSkewToleranceMs);

  (void)JsonNestingExceeds(text, 32);
  return 0;
}
