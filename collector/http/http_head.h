// Finds the end of an HTTP/1.1 request head while it is still arriving, with
// limits enforced on the bytes seen so far, never after a newline that an
// attacker may never send.
//
// Contract: Scan(head) is given every byte read so far (a prefix of the
// connection's stream; each call's argument extends the previous one). It
// returns kComplete once the head's blank line has arrived (head_end() is then
// the number of bytes up to and including it: what follows is body), kNeedMore
// while the head may still be valid, or a refusal as soon as the bytes seen
// break a limit:
//  - the request line grows past max_request_line bytes         -> kLineTooLong (414)
//  - a header line grows past max_header_line bytes, the head past
//    max_head_bytes, or the header lines number more than max_header_lines
//                                                                -> kHeadTooLarge (431)
//  - the first line is empty or holds a NUL byte                 -> kMalformed (400)
// A line ends at LF (CR LF or a bare LF, as the HTTP library reads it). The
// scanner is linear over the whole stream: each byte is looked at once.
#pragma once

#include <cstddef>
#include <string_view>

namespace rdmascope::collector {

struct HeadLimits {
  size_t max_request_line = 8192;   // bytes, the line ending included
  size_t max_header_line = 8192;    // bytes of one header line
  size_t max_head_bytes = 32768;    // request line, headers and the blank line
  size_t max_header_lines = 100;
};

class HeadScanner {
 public:
  enum class State { kNeedMore, kComplete, kLineTooLong, kHeadTooLarge, kMalformed };

  explicit HeadScanner(HeadLimits limits = {}) : limits_(limits) {}

  State Scan(std::string_view head);
  size_t head_end() const { return head_end_; }

  // The HTTP status and short reason for a refusal state (0 for the others).
  static int Status(State s);
  static const char* Reason(State s);

 private:
  HeadLimits limits_;
  State state_ = State::kNeedMore;
  size_t pos_ = 0;         // next byte to look at
  size_t line_start_ = 0;  // first byte of the current line
  size_t lines_ = 0;       // complete lines so far (the request line is the first)
  size_t head_end_ = 0;
};

}  // namespace rdmascope::collector
