// Text helpers shared by the parsers of config files, token files, sysfs
// attributes, HTTP headers and work-completion names.
//
// Contract: ASCII only, independent of the locale. Trim's default set is the
// ASCII whitespace " \t\n\v\f\r" (what std::isspace accepts in the "C"
// locale); callers whose format allows fewer characters pass their own set.
// Trim returns a view into its argument, valid as long as the argument is.
#pragma once

#include <string_view>

namespace rdmascope {

inline constexpr std::string_view kAsciiWhitespace = " \t\n\v\f\r";
// Spaces and tabs: the blanks around list items in config values and HTTP headers.
inline constexpr std::string_view kBlanks = " \t";
// Spaces, tabs and line ends, but not vertical tabs or form feeds: what the
// collector's config and token files and its Authorization headers trim.
inline constexpr std::string_view kBlanksAndLineEnds = " \t\r\n";

// `text` without its leading and trailing characters that are in `set`.
std::string_view Trim(std::string_view text, std::string_view set = kAsciiWhitespace);

// True when `a` and `b` are equal but for the case of ASCII letters.
bool EqualsNoCase(std::string_view a, std::string_view b);

}  // namespace rdmascope
