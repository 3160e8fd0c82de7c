// The paged port list's cursor (contract in port_cursor.h).
#include "collector/readmodel/port_cursor.h"

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

using nlohmann::json;

namespace {

constexpr int kVersion = 1;
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64Url(const std::string& in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(acc >> bits) & 63]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 63]);
  return out;
}

std::optional<std::string> FromBase64Url(const std::string& in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '-') v = 62;
    else if (c == '_') v = 63;
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace

const char* PortSortName(PortSort s) {
  switch (s) {
    case PortSort::kNode: return "node";
    case PortSort::kDevice: return "device";
    case PortSort::kState: return "state";
    case PortSort::kFirmware: return "firmware";
  }
  return "node";
}

std::optional<PortSort> PortSortByName(const std::string& name) {
  for (PortSort s : {PortSort::kNode, PortSort::kDevice, PortSort::kState, PortSort::kFirmware})
    if (name == PortSortName(s)) return s;
  return std::nullopt;
}

std::string EncodePortCursor(const PortCursor& c) {
  const json a = {kVersion, PortSortName(c.sort), c.desc ? "desc" : "asc", c.key.state, c.key.primary,
                  c.key.node,  c.key.device,        c.key.port};
  return Base64Url(a.dump(-1, ' ', false, json::error_handler_t::replace));
}

Result<PortCursor> DecodePortCursor(const std::string& text) {
  const auto bad = [](const std::string& why) {
    return Status::Error("not a cursor of this collector's port list (" + why +
                         "): pass next_cursor exactly as an answer gave it");
  };
  auto raw = FromBase64Url(text);
  if (!raw) return bad("a character outside [A-Za-z0-9_-]");
  const json a = json::parse(*raw, nullptr, /*allow_exceptions=*/false);
  if (!a.is_array() || a.size() != 8) return bad("not its encoding");
  if (!a[0].is_number_integer() || a[0].get<int64_t>() != kVersion) return bad("another version");
  if (!a[1].is_string() || !a[2].is_string() || !a[3].is_number_integer() || !a[4].is_string() ||
      !a[5].is_string() || !a[6].is_string() || !a[7].is_number_integer())
    return bad("not its encoding");
  auto sort = PortSortByName(a[1].get<std::string>());
  const std::string order = a[2].get<std::string>();
  if (!sort || (order != "asc" && order != "desc")) return bad("an unknown sort or order");
  PortCursor c;
  c.sort = *sort;
  c.desc = order == "desc";
  c.key = PortKey{a[3].get<int64_t>(), a[4].get<std::string>(), a[5].get<std::string>(), a[6].get<std::string>(),
                  a[7].get<int64_t>()};
  return c;
}

}  // namespace rdmascope::collector
