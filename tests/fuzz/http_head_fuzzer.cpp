// libFuzzer harness for the HTTP front's head scanner (collector/http_head.h).
// The input is a byte stream; its first byte sets the size of the pieces it
// arrives in. Checks that the scanner's verdict does not depend on how the
// bytes were split, and that a complete head respects every limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "collector/http/http_head.h"

using rdmascope::collector::HeadLimits;
using rdmascope::collector::HeadScanner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t piece = 1 + data[0] % 64;
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  HeadLimits limits;
  limits.max_request_line = 64;
  limits.max_header_line = 48;
  limits.max_head_bytes = 256;  // below 8 full header lines: every limit can bind
  limits.max_header_lines = 8;

  HeadScanner whole(limits), pieces(limits);
  const HeadScanner::State at_once = whole.Scan(stream);
  HeadScanner::State split = HeadScanner::State::kNeedMore;
  for (size_t end = std::min(piece, stream.size());; end = std::min(end + piece, stream.size())) {
    split = pieces.Scan(stream.substr(0, end));
    if (split != HeadScanner::State::kNeedMore || end == stream.size()) break;
  }
  // A refusal may come earlier in pieces (a line too long before its newline)
  // but a complete head is complete either way, at the same place.
  if ((at_once == HeadScanner::State::kComplete) != (split == HeadScanner::State::kComplete)) std::abort();
  if (at_once == HeadScanner::State::kComplete) {
    const size_t end = whole.head_end();
    if (end != pieces.head_end() || end > stream.size() || end > limits.max_head_bytes || stream[end - 1] != '\n')
      std::abort();
    size_t lines = 0, start = 0;
    for (size_t i = 0; i < end; ++i) {
      if (stream[i] != '\n') continue;
      const size_t len = i + 1 - start;
      if (lines == 0 && len > limits.max_request_line) std::abort();
      if (lines > 0 && len > limits.max_header_line) std::abort();
      ++lines;
      start = i + 1;
    }
    if (lines - 2 > limits.max_header_lines) std::abort();  // request line and blank line aside
  }
  return 0;
}
