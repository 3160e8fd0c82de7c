#include "agent/node/sysfs_parse.h"

#include <cctype>
#include <cstdlib>
#include <limits>

#include "common/text.h"

namespace rdmascope {
namespace {

bool AllDigits(std::string_view s, int base) {
  if (s.empty()) return false;
  for (char c : s) {
    if (base == 16 ? !std::isxdigit(static_cast<unsigned char>(c)) : !std::isdigit(static_cast<unsigned char>(c)))
      return false;
  }
  return true;
}

std::optional<uint64_t> ParseUnsigned(std::string_view s, int base) {
  if (!AllDigits(s, base)) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
    if (v > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return std::nullopt;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace

std::optional<NumberedName> ParseNumberedName(std::string_view text) {
  text = Trim(text);
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto num = ParseUnsigned(Trim(text.substr(0, colon)), 10);
  std::string_view name = Trim(text.substr(colon + 1));
  if (!num || *num > 255 || name.empty()) return std::nullopt;
  return NumberedName{static_cast<int>(*num), std::string(name)};
}

std::optional<uint32_t> ParseU32(std::string_view text) {
  text = Trim(text);
  std::optional<uint64_t> v;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    v = ParseUnsigned(text.substr(2), 16);
  else
    v = ParseUnsigned(text, 10);
  if (!v || *v > std::numeric_limits<uint32_t>::max()) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

std::optional<uint64_t> ParseU64(std::string_view text) { return ParseUnsigned(Trim(text), 10); }

std::optional<Rate> ParseRate(std::string_view text) {
  text = Trim(text);
  // "<gbps> Gb/sec (<width>X[ <speed>])"
  size_t unit = text.find(" Gb/sec (");
  if (unit == std::string_view::npos || text.back() != ')') return std::nullopt;
  std::string num(text.substr(0, unit));
  if (num.empty() || num.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  double gbps = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) return std::nullopt;
  std::string_view inner = text.substr(unit + 9, text.size() - unit - 10);
  size_t sp = inner.find(' ');
  std::string_view width = inner.substr(0, sp);
  std::string_view speed = sp == std::string_view::npos ? std::string_view("SDR") : Trim(inner.substr(sp + 1));
  if (width.size() < 2 || width.back() != 'X' || !AllDigits(width.substr(0, width.size() - 1), 10) || speed.empty())
    return std::nullopt;
  Rate r;
  r.gbps = gbps;
  r.width = std::string(width);
  r.speed = std::string(speed);
  r.text = std::string(text);
  return r;
}

bool IsWellFormedGid(std::string_view text) {
  if (text.size() != 39) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i % 5 == 4) {
      if (text[i] != ':') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(text[i]))) {
      return false;
    }
  }
  return true;
}

bool IsZeroGid(std::string_view text) {
  for (char c : text)
    if (c != '0' && c != ':') return false;
  return true;
}

}  // namespace rdmascope
