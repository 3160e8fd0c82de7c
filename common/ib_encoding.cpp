#include "common/ib_encoding.h"

#include <cstddef>
#include <iterator>

namespace rdmascope::ib {
namespace {

struct Width {
  int bits;  // PortInfo LinkWidth bit
  const char* text;
};

// Lowest rank first.
constexpr Width kWidths[] = {{1, "1X"}, {16, "2X"}, {2, "4X"}, {4, "8X"}, {8, "12X"}};

struct Speed {
  int bits;      // PortInfo LinkSpeed bit (0: an extended speed)
  int ext_bits;  // PortInfo LinkSpeedExt bit (0: a base speed)
  const char* text;
};

// Lowest rank first.
constexpr Speed kSpeeds[] = {{1, 0, "SDR"}, {2, 0, "DDR"}, {4, 0, "QDR"}, {8, 0, "FDR10"},
                             {0, 1, "FDR"}, {0, 2, "EDR"}, {0, 4, "HDR"}, {0, 8, "NDR"}};

struct Mtu {
  int code;
  uint32_t bytes;
};

constexpr Mtu kMtus[] = {{1, 256}, {2, 512}, {3, 1024}, {4, 2048}, {5, 4096}};

template <typename T, size_t N, typename Pred>
int IndexOf(const T (&table)[N], Pred pred) {
  for (size_t i = 0; i < N; ++i)
    if (pred(table[i])) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::string WidthText(int width_bits) {
  int i = IndexOf(kWidths, [&](const Width& w) { return w.bits == width_bits; });
  return i < 0 ? "?" : kWidths[i].text;
}

int WidthBits(const std::string& text) {
  int i = WidthRank(text);
  return i < 0 ? 0 : kWidths[i].bits;
}

int WidthRank(const std::string& text) {
  return IndexOf(kWidths, [&](const Width& w) { return text == w.text; });
}

std::string BestWidthText(int supported_bits) {
  for (int i = static_cast<int>(std::size(kWidths)) - 1; i >= 0; --i)
    if (supported_bits & kWidths[i].bits) return kWidths[i].text;
  return "?";
}

std::string SpeedText(int speed_bits, int speed_ext_bits) {
  int i = IndexOf(kSpeeds, [&](const Speed& s) { return s.ext_bits != 0 && s.ext_bits == speed_ext_bits; });
  if (i < 0) i = IndexOf(kSpeeds, [&](const Speed& s) { return s.bits != 0 && s.bits == speed_bits; });
  return i < 0 ? "?" : kSpeeds[i].text;
}

void SpeedBits(const std::string& text, int* speed_bits, int* speed_ext_bits) {
  int i = SpeedRank(text);
  *speed_bits = i < 0 ? 0 : kSpeeds[i].bits;
  *speed_ext_bits = i < 0 ? 0 : kSpeeds[i].ext_bits;
}

int SpeedRank(const std::string& text) {
  return IndexOf(kSpeeds, [&](const Speed& s) { return text == s.text; });
}

std::string BestSpeedText(int supported_bits, int supported_ext_bits) {
  for (int i = static_cast<int>(std::size(kSpeeds)) - 1; i >= 0; --i)
    if ((supported_bits & kSpeeds[i].bits) || (supported_ext_bits & kSpeeds[i].ext_bits)) return kSpeeds[i].text;
  return "?";
}

uint32_t MtuBytes(int code) {
  int i = IndexOf(kMtus, [&](const Mtu& m) { return m.code == code; });
  return i < 0 ? 0 : kMtus[i].bytes;
}

int MtuCode(uint64_t bytes) {
  int i = IndexOf(kMtus, [&](const Mtu& m) { return m.bytes == bytes; });
  return i < 0 ? 0 : kMtus[i].code;
}

}  // namespace rdmascope::ib
