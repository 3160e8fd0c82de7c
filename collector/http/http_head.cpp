#include "collector/http/http_head.h"

namespace rdmascope::collector {

HeadScanner::State HeadScanner::Scan(std::string_view head) {
  if (state_ != State::kNeedMore) return state_;
  for (; pos_ < head.size(); ++pos_) {
    const char c = head[pos_];
    if (c == '\0' && lines_ == 0) return state_ = State::kMalformed;
    if (c != '\n') continue;
    const size_t length = pos_ + 1 - line_start_;  // with its line ending
    if (lines_ == 0 && length > limits_.max_request_line) return state_ = State::kLineTooLong;
    if (lines_ > 0 && length > limits_.max_header_line) return state_ = State::kHeadTooLarge;
    if (pos_ + 1 > limits_.max_head_bytes) return state_ = State::kHeadTooLarge;
    const bool blank = length == 1 || (length == 2 && head[line_start_] == '\r');
    if (blank) {
      if (lines_ == 0) return state_ = State::kMalformed;
      head_end_ = pos_ + 1;
      return state_ = State::kComplete;
    }
    ++lines_;
    line_start_ = pos_ + 1;
    if (lines_ - 1 > limits_.max_header_lines) return state_ = State::kHeadTooLarge;
  }
  // The line still arriving, and the head so far, against the limits.
  const size_t partial = head.size() - line_start_;
  if (lines_ == 0 && partial > limits_.max_request_line) return state_ = State::kLineTooLong;
  if (lines_ > 0 && partial > limits_.max_header_line) return state_ = State::kHeadTooLarge;
  if (head.size() > limits_.max_head_bytes) return state_ = State::kHeadTooLarge;
  return state_;
}

int HeadScanner::Status(State s) {
  switch (s) {
    case State::kLineTooLong: return 414;
    case State::kHeadTooLarge: return 431;
    case State::kMalformed: return 400;
    default: return 0;
  }
}

const char* HeadScanner::Reason(State s) {
  switch (s) {
    case State::kLineTooLong: return "request line too long";
    case State::kHeadTooLarge: return "request headers too large";
    case State::kMalformed: return "malformed request";
    default: return "";
  }
}

}  // namespace rdmascope::collector
