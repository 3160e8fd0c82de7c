#include "agent/client/collector_url.h"

#include <cctype>

namespace rdmascope::client {
namespace {

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool HostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

}  // namespace

Result<CollectorUrl> ParseCollectorUrl(const std::string& url) {
  const std::string bad = "collector URL '" + url + "': ";
  std::string rest;
  std::string scheme;
  if (url.rfind("http://", 0) == 0) {
    scheme = "http";
    rest = url.substr(7);
  } else if (url.rfind("https://", 0) == 0) {
    scheme = "https";
    rest = url.substr(8);
  } else {
    return Status::Error(bad + "must start with http:// or https://");
  }
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  if (path.find_first_of("?#") != std::string::npos) {
    return Status::Error(bad + "a query or fragment is not allowed");
  }
  while (!path.empty() && path.back() == '/') path.pop_back();

  std::string host;
  std::string port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return Status::Error(bad + "unclosed '[' in the host");
    host = authority.substr(0, close + 1);
    std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return Status::Error(bad + "unexpected text after the IPv6 host");
      port = after.substr(1);
      if (port.empty()) return Status::Error(bad + "empty port");
    }
  } else {
    size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return Status::Error(bad + "empty port");
    }
    for (char c : host)
      if (!HostChar(c)) return Status::Error(bad + "bad character in host '" + host + "'");
  }
  if (host.empty() || host == "[]") return Status::Error(bad + "no host");
  if (!port.empty()) {
    if (!AllDigits(port) || port.size() > 5 || std::stol(port) < 1 || std::stol(port) > 65535) {
      return Status::Error(bad + "port '" + port + "' is not 1..65535");
    }
  }
  CollectorUrl out;
  out.scheme_host_port = scheme + "://" + host + (port.empty() ? "" : ":" + port);
  out.path_prefix = path;
  return out;
}

}  // namespace rdmascope::client
