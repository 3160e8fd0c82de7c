#include "collector/http/request_guard.h"

namespace rdmascope::collector {
namespace {

constexpr char kReportPath[] = "/api/v1/reports";

bool TakesBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE" || method == "PRI";
}

// A decimal Content-Length, nullopt when it is not one.
std::optional<unsigned long long> ParseLength(const std::string& text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  unsigned long long v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned long long>(c - '0');
  }
  return v;
}

}  // namespace

std::optional<Refusal> GuardRequest(const std::string& method, const std::string& path, const HeaderLookup& header,
                                    size_t max_body_bytes) {
  const bool report_route = method == "POST" && path == kReportPath;
  if (header("Transfer-Encoding")) {
    if (report_route)
      return Refusal{411, "length required", "send the report with a Content-Length, not Transfer-Encoding"};
    return Refusal{400, "request body not accepted", "only POST " + std::string(kReportPath) + " takes a body"};
  }
  if (auto enc = header("Content-Encoding"); enc && *enc != "identity")
    return Refusal{415, "unsupported content encoding", "send the body uncompressed (Content-Encoding: " + *enc + ")"};
  if (header("Range")) return Refusal{416, "range not served", "request the whole resource without a Range header"};
  auto length_text = header("Content-Length");
  if (!length_text) {
    if (TakesBody(method))
      return Refusal{411, "length required", method + " needs a Content-Length (bodies without one are not read)"};
    return std::nullopt;
  }
  auto length = ParseLength(*length_text);
  if (!length) return Refusal{400, "bad Content-Length", "Content-Length must be a decimal byte count"};
  if (!report_route) {
    if (*length > 0)
      return Refusal{400, "request body not accepted", "only POST " + std::string(kReportPath) + " takes a body"};
    return std::nullopt;
  }
  if (*length > max_body_bytes)
    return Refusal{413, "report too large",
                   "the body of " + *length_text + " bytes is over the collector's cap of " +
                       std::to_string(max_body_bytes) + " bytes (--max-body-bytes)"};
  return std::nullopt;
}

bool JsonNestingExceeds(const std::string& text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace rdmascope::collector
