#include "agent/client/token_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/text.h"

namespace rdmascope::client {
namespace {

constexpr size_t kMaxTokenBytes = 4096;

}  // namespace

Result<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("token file " + path + ": cannot open: " + std::strerror(errno));
  std::string text(kMaxTokenBytes + 1, '\0');
  in.read(&text[0], std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (text.size() > kMaxTokenBytes) return Status::Error("token file " + path + ": longer than 4096 bytes");
  std::string token(Trim(text));
  if (token.empty()) return Status::Error("token file " + path + ": holds no token");
  for (char c : token) {
    if (c == '\r' || c == '\n' || c == '\0') return Status::Error("token file " + path + ": token spans lines");
  }
  return token;
}

}  // namespace rdmascope::client
