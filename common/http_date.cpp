#include "common/http_date.h"

#include <chrono>
#include <ctime>

namespace rdmascope {
namespace {

// `format` (strftime) of the UTC time ms_since_epoch falls in, whole seconds.
std::string FormatUtc(int64_t ms_since_epoch, const char* format) {
  time_t t = static_cast<time_t>(ms_since_epoch / 1000);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[64];
  size_t n = strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

}  // namespace

std::optional<int64_t> ParseHttpDate(const std::string& text) {
  struct tm tm {};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  time_t t = timegm(&tm);
  if (t < 0) return std::nullopt;
  return static_cast<int64_t>(t) * 1000;
}

std::string FormatHttpDate(int64_t ms_since_epoch) { return FormatUtc(ms_since_epoch, "%a, %d %b %Y %H:%M:%S GMT"); }

std::string FormatUtcTimestamp(int64_t ms_since_epoch) { return FormatUtc(ms_since_epoch, "%Y-%m-%dT%H:%M:%SZ"); }

std::string HttpDateNow() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return FormatHttpDate(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
}

}  // namespace rdmascope
