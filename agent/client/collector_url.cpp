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

Result<std::vector<CollectorUrl>> ParseCollectorUrls(const std::string& list) {
  std::vector<CollectorUrl> out;
  size_t start = 0;
  for (int n = 1;; ++n) {
    const size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    item = a == std::string::npos ? "" : item.substr(a, b - a + 1);
    if (item.empty()) return Status::Error("collector list '" + list + "': item " + std::to_string(n) + " is empty");
    auto url = ParseCollectorUrl(item);
    if (!url.ok()) return url.status();
    for (const CollectorUrl& u : out)
      if (u.scheme_host_port == url->scheme_host_port && u.path_prefix == url->path_prefix)
        return Status::Error("collector list '" + list + "': " + item + " is named twice");
    out.push_back(*url);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace rdmascope::client
