#include "probes/control_seal.h"

#include <nlohmann/json.hpp>

#include "probes/control_auth.h"

namespace rdmascope::probes {

namespace {

const char* DirLabel(ControlSeal::Side side) { return side == ControlSeal::Side::kProber ? "prober" : "agent"; }

ControlSeal::Side Other(ControlSeal::Side side) {
  return side == ControlSeal::Side::kProber ? ControlSeal::Side::kAgent : ControlSeal::Side::kProber;
}

std::string SealedData(ControlSeal::Side from, uint64_t seq, const std::string& body) {
  return std::string(DirLabel(from)) + "\n" + std::to_string(seq) + "\n" + body;
}

}  // namespace

std::string ControlSeal::Seal(const std::string& body) {
  if (!keyed()) return body;
  ++sent_;
  return nlohmann::json{{"seq", sent_}, {"body", body}, {"mac", HmacSha256Hex(key_, SealedData(side_, sent_, body))}}
      .dump();
}

size_t ControlSeal::SealedBytes(const std::string& body) const {
  if (!keyed()) return body.size();
  // A MAC is always 64 hex digits: a placeholder weighs the same.
  return nlohmann::json{{"seq", sent_ + 1}, {"body", body}, {"mac", std::string(64, '0')}}.dump().size();
}

Result<std::string> ControlSeal::Open(const std::string& line) {
  if (!keyed()) return line;
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Error("sealed control line: not a JSON object");
  auto seq = j.find("seq");
  auto body = j.find("body");
  auto mac = j.find("mac");
  if (seq == j.end() || !seq->is_number_unsigned() || body == j.end() || !body->is_string() || mac == j.end() ||
      !mac->is_string()) {
    return Status::Error("sealed control line: needs seq (number), body and mac (strings) after authentication");
  }
  const uint64_t n = seq->get<uint64_t>();
  const std::string& b = body->get_ref<const std::string&>();
  if (!MacHexEqual(mac->get_ref<const std::string&>(), HmacSha256Hex(key_, SealedData(Other(side_), n, b)))) {
    return Status::Error("sealed control line: wrong MAC (not from the authenticated peer, or altered)");
  }
  if (n != received_ + 1) {
    return Status::Error("sealed control line: sequence " + std::to_string(n) + " where " +
                         std::to_string(received_ + 1) + " was due (replayed or reordered)");
  }
  received_ = n;
  return b;
}

Status WriteSealed(LineConn& conn, ControlSeal& seal, const std::string& body, uint64_t deadline_ns) {
  return conn.WriteLine(seal.Seal(body), deadline_ns);
}

Result<std::string> ReadSealed(LineConn& conn, ControlSeal& seal, uint64_t deadline_ns,
                               const std::atomic<bool>* stop) {
  auto line = conn.ReadLine(deadline_ns, stop);
  if (!line.ok()) return line.status();
  return seal.Open(*line);
}

}  // namespace rdmascope::probes
