// The benchmarks' flag values: a whole number or a decimal, or refused.
// Text that is not entirely a number (trailing text, empty, out of range)
// is refused, so a typo is not read as 0.
#pragma once

#include <charconv>
#include <cstring>

namespace rdmascope::collector::bench {

// *out = text as a base-10 number of T (int or double); false, and *out
// unchanged, when it is not one.
template <typename T>
bool ParseNumberFlag(const char* text, T* out) {
  const char* end = text + std::strlen(text);
  T v{};
  const auto [at, ec] = std::from_chars(text, end, v);
  if (ec != std::errc() || at != end || at == text) return false;
  *out = v;
  return true;
}

}  // namespace rdmascope::collector::bench
