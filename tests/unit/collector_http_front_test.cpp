// The HTTP front's parts: the head scanner's limits while bytes arrive, the
// per-client connection slots, and the bounded worker queue.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>

#include "collector/http/bounded_task_queue.h"
#include "collector/http/client_slots.h"
#include "collector/http/http_head.h"

namespace rdmascope::collector {
namespace {

using State = HeadScanner::State;

// Feeds `text` one byte at a time; the state after the last byte.
State ByteByByte(HeadScanner& s, const std::string& text) {
  State st = State::kNeedMore;
  for (size_t i = 1; i <= text.size() && st == State::kNeedMore; ++i) st = s.Scan(std::string_view(text).substr(0, i));
  return st;
}

TEST(HeadScanner, CompleteHeadEndsAtTheBlankLineWhateverFollows) {
  const std::string head = "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n";
  HeadScanner s;
  EXPECT_EQ(s.Scan(head + "body"), State::kComplete);
  EXPECT_EQ(s.head_end(), head.size());
  HeadScanner bytes;
  EXPECT_EQ(ByteByByte(bytes, head), State::kComplete);
  EXPECT_EQ(bytes.head_end(), head.size());
}

TEST(HeadScanner, BareLineFeedsEndLinesToo) {
  HeadScanner s;
  EXPECT_EQ(s.Scan("GET / HTTP/1.1\nHost: x\n\n"), State::kComplete);
  EXPECT_EQ(s.head_end(), 24u);
}

TEST(HeadScanner, RequestLineRefusedWhileItArrivesWithoutANewline) {
  HeadLimits l;
  l.max_request_line = 64;
  HeadScanner s(l);
  std::string line = "GET /" + std::string(40, 'a');
  EXPECT_EQ(s.Scan(line), State::kNeedMore);
  line += std::string(40, 'a');  // 85 bytes, no newline yet
  EXPECT_EQ(s.Scan(line), State::kLineTooLong);
  EXPECT_EQ(HeadScanner::Status(State::kLineTooLong), 414);
}

TEST(HeadScanner, LongRequestLineInOneChunkIsRefused) {
  HeadLimits l;
  l.max_request_line = 64;
  HeadScanner s(l);
  EXPECT_EQ(s.Scan("GET /" + std::string(100, 'a') + " HTTP/1.1\r\n\r\n"), State::kLineTooLong);
}

TEST(HeadScanner, HeaderLineHeadSizeAndCountAreCapped) {
  HeadLimits l;
  l.max_header_line = 100;
  l.max_head_bytes = 1000;
  l.max_header_lines = 5;
  HeadScanner line(l);
  EXPECT_EQ(line.Scan("GET / HTTP/1.1\r\nX: " + std::string(200, 'v')), State::kHeadTooLarge);
  HeadScanner count(l);
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 6; ++i) many += "X: 1\r\n";
  EXPECT_EQ(count.Scan(many), State::kHeadTooLarge);
  HeadScanner five(l);
  std::string ok = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 5; ++i) ok += "X: 1\r\n";
  EXPECT_EQ(five.Scan(ok + "\r\n"), State::kComplete);
  HeadScanner size(l);
  std::string big = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 4; ++i) big += "X: " + std::string(90, 'v') + "\r\n";
  big += "Y: " + std::string(90, 'v');  // 489 bytes, the last line still arriving
  EXPECT_EQ(size.Scan(big), State::kNeedMore);
  l.max_head_bytes = 400;
  HeadScanner smaller(l);
  EXPECT_EQ(smaller.Scan(big), State::kHeadTooLarge);
  EXPECT_EQ(HeadScanner::Status(State::kHeadTooLarge), 431);
}

TEST(HeadScanner, EmptyFirstLineOrNulIsMalformed) {
  HeadScanner blank;
  EXPECT_EQ(blank.Scan("\r\nGET / HTTP/1.1\r\n\r\n"), State::kMalformed);
  HeadScanner nul;
  EXPECT_EQ(nul.Scan(std::string("GET /\0 HTTP/1.1\r\n\r\n", 20)), State::kMalformed);
  EXPECT_EQ(HeadScanner::Status(State::kMalformed), 400);
}

TEST(HeadScanner, StaysInItsFinalState) {
  HeadScanner s;
  EXPECT_EQ(s.Scan("GET / HTTP/1.1\r\n\r\n"), State::kComplete);
  EXPECT_EQ(s.Scan("GET / HTTP/1.1\r\n\r\nmore"), State::kComplete);
  EXPECT_EQ(s.head_end(), 18u);
}

TEST(ClientSlots, CapsEachAddressAndTheTotal) {
  ClientSlots slots(3, 2);
  EXPECT_EQ(slots.Acquire("10.0.0.1"), ClientSlots::Outcome::kTaken);
  EXPECT_EQ(slots.Acquire("10.0.0.1"), ClientSlots::Outcome::kTaken);
  EXPECT_EQ(slots.Acquire("10.0.0.1"), ClientSlots::Outcome::kClientFull);
  EXPECT_EQ(slots.Acquire("10.0.0.2"), ClientSlots::Outcome::kTaken);
  EXPECT_EQ(slots.Acquire("10.0.0.3"), ClientSlots::Outcome::kFull);
  EXPECT_EQ(slots.total(), 3u);
  slots.Release("10.0.0.1");
  EXPECT_EQ(slots.Acquire("10.0.0.3"), ClientSlots::Outcome::kTaken);
  slots.Release("10.0.0.9");  // never taken: changes nothing
  EXPECT_EQ(slots.total(), 3u);
}

// One worker, one queue slot: with the worker busy and one job waiting, a
// third job is refused, not queued; the waiting one still runs.
TEST(BoundedTaskQueue, BeyondCapacityTheJobIsRefused) {
  BoundedTaskQueue q(1, 1);
  std::promise<void> started, release, queued_ran;
  std::shared_future<void> released = release.get_future().share();
  ASSERT_TRUE(q.TrySubmit([&] {
    started.set_value();
    released.wait();
  }));
  started.get_future().wait();
  ASSERT_TRUE(q.TrySubmit([&] { queued_ran.set_value(); }));
  bool refused_ran = false;
  EXPECT_FALSE(q.TrySubmit([&] { refused_ran = true; }));
  release.set_value();
  EXPECT_EQ(queued_ran.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  q.Shutdown();
  EXPECT_FALSE(refused_ran);
  EXPECT_FALSE(q.TrySubmit([] {})) << "a job submitted after Shutdown must be refused";
}

}  // namespace
}  // namespace rdmascope::collector
