#include "common/text.h"

namespace rdmascope {
namespace {

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::string_view Trim(std::string_view text, std::string_view set) {
  const size_t begin = text.find_first_not_of(set);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(set) - begin + 1);
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (LowerAscii(a[i]) != LowerAscii(b[i])) return false;
  return true;
}

}  // namespace rdmascope
