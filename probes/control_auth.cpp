#include "probes/control_auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace rdmascope::probes {

namespace {

std::string Hex(const unsigned char* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += d[p[i] >> 4];
    out += d[p[i] & 15];
  }
  return out;
}

// The object of a reply line, or an error naming `what` and the server's words.
Result<nlohmann::json> OkReply(const std::string& line, const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Error(what + ": the reply is not a JSON object");
  if (j.value("ok", false) != true) {
    std::string e = j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>() : "refused";
    return Status::Error(what + " refused: " + e);
  }
  return j;
}

}  // namespace

Result<std::string> NewNonceHex() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) return Status::Error("RAND_bytes failed: no nonce for control authentication");
  return Hex(b, sizeof b);
}

std::string AuthMacHex(const std::string& secret, const std::string& nonce_hex) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), int(secret.size()),
       reinterpret_cast<const unsigned char*>(nonce_hex.data()), nonce_hex.size(), mac, &len);
  return Hex(mac, len);
}

bool MacMatches(const std::string& secret, const std::string& nonce_hex, const std::string& mac_hex) {
  const std::string want = AuthMacHex(secret, nonce_hex);
  return mac_hex.size() == want.size() && CRYPTO_memcmp(mac_hex.data(), want.data(), want.size()) == 0;
}

Result<std::string> ReadSecretFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("control secret file " + path + ": cannot be read");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  if (s.empty()) return Status::Error("control secret file " + path + ": empty");
  if (s.size() > 4096) return Status::Error("control secret file " + path + ": longer than 4096 bytes");
  return s;
}

Status Authenticate(LineConn& conn, const std::string& secret, uint64_t deadline_ns) {
  Status s = conn.WriteLine(R"({"op":"hello"})", deadline_ns);
  if (!s.ok()) return Status::Error("control port (hello): " + s.message());
  auto line = conn.ReadLine(deadline_ns);
  if (!line.ok()) return Status::Error("control port (hello): " + line.status().message());
  auto hello = OkReply(*line, "control hello");
  if (!hello.ok()) return hello.status();
  if (!hello->contains("nonce")) return Status::Ok();  // the agent has no secret: nothing to prove
  if (!(*hello)["nonce"].is_string()) return Status::Error("control hello: the nonce is not a string");
  const std::string nonce = (*hello)["nonce"].get<std::string>();
  nlohmann::json auth = {{"op", "auth"}, {"mac", AuthMacHex(secret, nonce)}};
  s = conn.WriteLine(auth.dump(), deadline_ns);
  if (!s.ok()) return Status::Error("control port (auth): " + s.message());
  line = conn.ReadLine(deadline_ns);
  if (!line.ok()) return Status::Error("control port (auth): " + line.status().message());
  auto ok = OkReply(*line, "control authentication");
  return ok.ok() ? Status::Ok() : ok.status();
}

}  // namespace rdmascope::probes
