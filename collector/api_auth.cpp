#include "collector/api_auth.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace rdmascope::collector {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool ConstantTimeEqual(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % (b.empty() ? 1 : b.size())]);
  return diff == 0 && !b.empty();
}

}  // namespace

Result<std::vector<std::string>> LoadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return Result<std::vector<std::string>>::Error("cannot read token file " + path + ": " + std::strerror(errno));
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    tokens.push_back(t);
  }
  if (tokens.empty())
    return Result<std::vector<std::string>>::Error("token file " + path +
                                                   " holds no token (one per line; '#' starts a comment)");
  return tokens;
}

bool BearerMatches(const std::string& authorization, const std::vector<std::string>& tokens) {
  const std::string prefix = "Bearer ";
  if (authorization.size() <= prefix.size() || authorization.compare(0, prefix.size(), prefix) != 0) return false;
  std::string presented = Trim(authorization.substr(prefix.size()));
  bool match = false;
  for (const std::string& t : tokens) match |= ConstantTimeEqual(presented, t);
  return match;
}

}  // namespace rdmascope::collector
