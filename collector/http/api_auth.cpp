#include "collector/http/api_auth.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <openssl/evp.h>

#include "common/text.h"

namespace rdmascope::collector {
namespace {

bool ConstantTimeEqual(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % (b.empty() ? 1 : b.size())]);
  return diff == 0 && !b.empty();
}

}  // namespace

Result<std::vector<NodeToken>> LoadTokenFile(const std::string& path) {
  using R = Result<std::vector<NodeToken>>;
  std::ifstream in(path);
  if (!in) return R::Error("cannot read token file " + path + ": " + std::strerror(errno));
  std::vector<NodeToken> tokens;
  std::map<std::string, int> first_line;  // token -> line number
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string t(Trim(line, kBlanksAndLineEnds));
    if (t.empty() || t[0] == '#') continue;
    std::istringstream words(t);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty()) continue;  // only blanks the trim does not take (vertical tab, form feed)
    const std::string where = path + ":" + std::to_string(number) + ": ";
    const std::string forms = "expected `NODE TOKEN`, `sweep NODE TOKEN` or `* TOKEN`";
    if (w.size() == 1)
      return R::Error(where + forms + ", found a single word (a fleet-wide token is written `* TOKEN`)");
    if (w.size() > 3) return R::Error(where + forms + ", found " + std::to_string(w.size()) + " words");
    const bool sweep = w[0] == "sweep";
    if (w.size() == 3 && !sweep) return R::Error(where + forms + ", found 3 words not starting with `sweep`");
    if (w.size() == 2 && sweep) return R::Error(where + "`sweep` needs the node it reports as: `sweep NODE TOKEN`");
    const std::string& node = sweep ? w[1] : w[0];
    if (sweep && node == "*")
      return R::Error(where + "`sweep *` is not a node (the fleet token `* TOKEN` may sweep already)");
    const std::string& token = w.back();
    if (token.size() < 8) return R::Error(where + "token shorter than 8 characters");
    if (auto seen = first_line.find(token); seen != first_line.end())
      return R::Error(where + "this token is already given on line " + std::to_string(seen->second) +
                      " (one line per token: its node and role)");
    first_line.emplace(token, number);
    tokens.emplace_back(node, token, sweep);
  }
  if (tokens.empty()) return R::Error("token file " + path + " holds no token (lines `NODE TOKEN`, `sweep NODE TOKEN` or `* TOKEN`; '#' starts a comment)");
  return tokens;
}

std::optional<TokenGrant> TokenGrantOf(const std::string& authorization, const std::vector<NodeToken>& tokens) {
  const std::string prefix = "Bearer ";
  if (authorization.size() <= prefix.size() || authorization.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  std::string presented(Trim(authorization.substr(prefix.size()), kBlanksAndLineEnds));
  std::optional<TokenGrant> grant;
  for (const NodeToken& t : tokens)  // no early exit: the time does not tell which entry matched
    if (ConstantTimeEqual(presented, t.token) && !grant) grant = TokenGrant{t.node, t.sweep};
  return grant;
}

bool BearerMatches(const std::string& authorization, const std::vector<NodeToken>& tokens) {
  return TokenGrantOf(authorization, tokens).has_value();
}

namespace {

// Decodes standard base64 (with padding); nullopt when it is not base64.
std::optional<std::string> Base64Decode(const std::string& in) {
  if (in.empty() || in.size() % 4 != 0 || in.size() > 4096) return std::nullopt;
  std::string out(in.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  size_t pad = 0;
  if (in[in.size() - 1] == '=') ++pad;
  if (in[in.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace

bool ReadAuthorized(const std::string& authorization, const std::vector<NodeToken>& read_tokens) {
  const std::string basic = "Basic ";
  if (authorization.compare(0, basic.size(), basic) != 0) return BearerMatches(authorization, read_tokens);
  auto decoded = Base64Decode(std::string(Trim(authorization.substr(basic.size()), kBlanksAndLineEnds)));
  if (!decoded) return false;
  size_t colon = decoded->find(':');
  if (colon == std::string::npos) return false;
  return BearerMatches("Bearer " + decoded->substr(colon + 1), read_tokens);
}

}  // namespace rdmascope::collector
