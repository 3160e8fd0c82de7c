// libFuzzer harness: the files an operator (or whoever can write them) hands
// the daemons. The first byte picks the reader, the rest is the file:
//  0: the collector's --config (JSON or key=value), LoadCollectorConfigFile;
//  1: the agent's --config text, ApplyConfigText then ValidateAgentConfig;
//  2: the agent's labels ("k=v,k=v"), ParseLabels;
//  3: a token file (--token-file / --read-token-file), LoadTokenFile;
//  4: the control port's secret file, ReadSecretFile.
// Files are memory files read through /proc/self/fd, as the daemons read a path.
// Findings: a crash or sanitizer report; a loaded token that its own bearer or
// Basic Authorization header does not match, or a token shorter than 8
// characters; a secret that is empty, longer than 4096 bytes or ends in
// a blank, tab or line end.
#include <openssl/evp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "agent/daemon/agent_config.h"
#include "collector/http/api_auth.h"
#include "collector/service/collector_config.h"
#include "probes/control_auth.h"

namespace {

// A memory file holding `text`, closed on destruction.
class MemFile {
 public:
  explicit MemFile(const std::string& text) : fd_(::memfd_create("fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0 || ::write(fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) __builtin_trap();
  }
  ~MemFile() { ::close(fd_); }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

std::string Base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

void CheckTokens(const std::vector<rdmascope::collector::NodeToken>& tokens) {
  using namespace rdmascope::collector;
  for (const NodeToken& t : tokens) {
    if (t.token.size() < 8 || t.node.empty()) __builtin_trap();
    auto grant = TokenGrantOf("Bearer " + t.token, tokens);
    if (!grant || grant->node != t.node || grant->MaySweep() != (t.sweep || t.node == "*")) __builtin_trap();
    if (t.token.size() <= 3000 && !ReadAuthorized("Basic " + Base64("user:" + t.token), tokens)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {
      rdmascope::collector::CollectorConfig c;
      (void)rdmascope::collector::LoadCollectorConfigFile(&c, MemFile(text).path());
      break;
    }
    case 1: {
      rdmascope::agent::AgentConfig c;
      if (rdmascope::agent::ApplyConfigText(text, "fuzz.conf", &c).ok()) (void)rdmascope::agent::ValidateAgentConfig(c);
      break;
    }
    case 2: {
      auto labels = rdmascope::agent::ParseLabels(text);
      if (labels.ok() && labels->size() > rdmascope::agent::kMaxUserLabels) __builtin_trap();
      break;
    }
    case 3: {
      auto tokens = rdmascope::collector::LoadTokenFile(MemFile(text).path());
      if (tokens.ok()) CheckTokens(*tokens);
      break;
    }
    default: {
      auto secret = rdmascope::probes::ReadSecretFile(MemFile(text).path());
      if (secret.ok() && (secret->empty() || secret->size() > 4096 ||
                          std::string(" \t\r\n").find(secret->back()) != std::string::npos))
        __builtin_trap();
      break;
    }
  }
  return 0;
}
