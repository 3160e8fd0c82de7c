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

std::string Labelled(const char* role, const std::string& np, const std::string& na) {
  return std::string("rdmascope control v2 ") + role + "\n" + np + "\n" + na;
}

// The object of a reply line, or an error naming `what` and the server's words.
Result<nlohmann::json> OkReply(const std::string& line, const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Error(what + ": the reply is not a JSON object");
  auto ok = j.find("ok");
  if (ok == j.end() || !ok->is_boolean() || !ok->get<bool>()) {
    auto err = j.find("error");
    std::string e = err != j.end() && err->is_string() ? err->get<std::string>() : "refused";
    return Status::Error(what + " refused: " + e);
  }
  return j;
}

// The string field `key` of j, "" when absent or not a string.
std::string StringField(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One request line out, one reply line back.
Result<nlohmann::json> Exchange(LineConn& conn, const nlohmann::json& req, const std::string& what,
                                uint64_t deadline_ns) {
  Status s = conn.WriteLine(req.dump(), deadline_ns);
  if (!s.ok()) return Status::Error("control port (" + what + "): " + s.message());
  auto line = conn.ReadLine(deadline_ns);
  if (!line.ok()) return Status::Error("control port (" + what + "): " + line.status().message());
  return OkReply(*line, "control " + what);
}

}  // namespace

Result<std::string> NewNonceHex() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) return Status::Error("RAND_bytes failed: no nonce for control authentication");
  return Hex(b, sizeof b);
}

bool IsNonceHex(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string HmacSha256Hex(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), int(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return Hex(mac, len);
}

bool MacHexEqual(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string ProberProof(const std::string& secret, const std::string& np, const std::string& na) {
  return HmacSha256Hex(secret, Labelled("prober", np, na));
}

std::string AgentProof(const std::string& secret, const std::string& np, const std::string& na) {
  return HmacSha256Hex(secret, Labelled("agent", np, na));
}

std::string SessionKey(const std::string& secret, const std::string& np, const std::string& na) {
  return HmacSha256Hex(secret, Labelled("session", np, na));
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

Result<ControlSeal> Authenticate(LineConn& conn, const std::string& secret, bool strict, uint64_t deadline_ns) {
  auto np = NewNonceHex();
  if (!np.ok()) return np.status();
  auto hello = Exchange(conn, {{"op", "hello"}, {"v", kControlProtocolVersion}, {"nonce", *np}}, "hello", deadline_ns);
  if (!hello.ok()) return hello.status();
  const std::string na = StringField(*hello, "nonce");
  auto v = hello->find("v");
  const bool v2 = v != hello->end() && v->is_number_unsigned() && v->get<uint64_t>() >= kControlProtocolVersion;
  if (na.empty()) {
    if (strict) {
      return Status::Error("control hello: the agent offers no authentication (it has no control secret); "
                           "refused in strict mode (set the same secret there, or lenient mode while rolling it out)");
    }
    return ControlSeal();
  }
  if (!IsNonceHex(na)) return Status::Error("control hello: the agent's nonce is not 32 lowercase hex digits");
  if (!v2) {
    if (strict) {
      return Status::Error("control hello: the agent speaks control protocol v1 (one-way authentication); "
                           "refused in strict mode (upgrade it, or use lenient mode until the fleet runs v2)");
    }
    auto ok = Exchange(conn, {{"op", "auth"}, {"mac", HmacSha256Hex(secret, na)}}, "authentication", deadline_ns);
    if (!ok.ok()) return ok.status();
    return ControlSeal();
  }
  auto ok = Exchange(conn, {{"op", "auth"}, {"mac", ProberProof(secret, *np, na)}}, "authentication", deadline_ns);
  if (!ok.ok()) return ok.status();
  if (!MacHexEqual(StringField(*ok, "mac"), AgentProof(secret, *np, na))) {
    return Status::Error("control authentication: the agent did not prove the control secret (wrong or missing "
                         "proof): not the agent it claims to be, or a different secret");
  }
  return ControlSeal(SessionKey(secret, *np, na), ControlSeal::Side::kProber);
}

Result<std::string> AgentAuth::Handle(const ControlRequest& req) {
  if (req.op == ControlOp::kHello) {
    if (said_hello_) return Status::Error("a second hello on one connection: connection closed");
    said_hello_ = true;
    nlohmann::json reply = {{"ok", true}, {"v", kControlProtocolVersion}};
    if (secret_.empty()) return reply.dump();  // nothing to prove
    if (req.version < kControlProtocolVersion || !IsNonceHex(req.nonce)) {
      if (strict_) {
        return Status::Error("control protocol v2 required: hello needs \"v\":2 and a nonce of 32 lowercase hex "
                             "digits (this agent has a control secret and is strict)");
      }
      return nlohmann::json{{"ok", true}}.dump();  // lenient: a v1 prober goes on unauthenticated
    }
    auto na = NewNonceHex();
    if (!na.ok()) return na.status();
    prober_nonce_ = req.nonce;
    agent_nonce_ = *na;
    reply["nonce"] = agent_nonce_;
    return reply.dump();
  }
  // auth
  if (secret_.empty()) return Status::Error("this agent has no control secret: nothing to authenticate");
  if (agent_nonce_.empty()) return Status::Error("auth before a v2 hello: no nonce to check");
  if (authenticated_) return Status::Error("a second auth on one connection: connection closed");
  if (!MacHexEqual(req.mac, ProberProof(secret_, prober_nonce_, agent_nonce_))) {
    return Status::Error("wrong control secret: authentication refused");
  }
  authenticated_ = true;
  seal_ = ControlSeal(SessionKey(secret_, prober_nonce_, agent_nonce_), ControlSeal::Side::kAgent);
  return nlohmann::json{{"ok", true}, {"mac", AgentProof(secret_, prober_nonce_, agent_nonce_)}}.dump();
}

}  // namespace rdmascope::probes
