// Hostile HTTP input against an in-process collector: every case is refused
// with a 4xx before a body is read or stored, and the collector keeps serving.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "collector/request_guard.h"
#include "tests/collector/test_reports.h"
#include "tests/collector/test_server.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::kTestToken;
using testing::MakeReport;
using testing::TestCollector;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Sends `head` (request line and headers, ending in an empty line), then up to
// `body_bytes` of filler while the server still reads, and returns the
// response's status line ("" when none came within 10 s).
std::string RawRequest(int port, const std::string& head, size_t body_bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  timeval wtv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wtv, sizeof wtv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  (void)!::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  const std::string chunk(64 * 1024, 'x');
  for (size_t sent = 0; sent < body_bytes;) {
    ssize_t n = ::send(fd, chunk.data(), std::min(chunk.size(), body_bytes - sent), MSG_NOSIGNAL);
    if (n <= 0) break;  // the server stopped reading or closed: it answered already
    sent += static_cast<size_t>(n);
  }
  std::string got;
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
    if (got.find("\r\n") != std::string::npos) break;
  }
  ::close(fd);
  return got.substr(0, got.find("\r\n"));
}

class HardeningTest : public ::testing::Test {
 protected:
  static ApiOptions Options() {
    ApiOptions o;
    o.max_body_bytes = 64 * 1024;
    return o;
  }
  void ExpectNothingStoredAndAlive() {
    EXPECT_EQ(c_.Rows("reports"), 0);
    EXPECT_EQ(c_.Rows("nodes"), 0);
    httplib::Client cli("127.0.0.1", c_.port());
    auto res = cli.Get("/healthz");
    ASSERT_TRUE(res) << "collector stopped answering";
    EXPECT_EQ(res->status, 200);
  }
  TestCollector c_{Options()};
  const std::string auth_ = std::string("Authorization: Bearer ") + kTestToken + "\r\n";
};

TEST_F(HardeningTest, ChunkedPostToAnyPathIsRefused) {
  EXPECT_EQ(RawRequest(c_.port(), "POST /anything HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 4 << 20),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(RawRequest(c_.port(),
                       "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\n" + auth_ + "Transfer-Encoding: chunked\r\n\r\n",
                       4 << 20),
            "HTTP/1.1 411 Length Required");
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, BodyWithoutLengthIsRefusedUnread) {
  // 64 MiB offered with no Content-Length: refused at once, not read to EOF.
  EXPECT_EQ(RawRequest(c_.port(), "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\n" + auth_ + "\r\n", 64u << 20),
            "HTTP/1.1 411 Length Required");
  EXPECT_EQ(RawRequest(c_.port(), "PUT /api/v1/nodes HTTP/1.1\r\nHost: x\r\n\r\n", 1u << 20),
            "HTTP/1.1 411 Length Required");
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, BodyOnARouteThatTakesNoneIsRefused) {
  EXPECT_EQ(RawRequest(c_.port(), "POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n", 1u << 20),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(RawRequest(c_.port(), "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", 5),
            "HTTP/1.1 400 Bad Request");
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, CompressedBodyIsRefusedOnEveryPath) {
  // The bytes are never inflated: refused on the header alone.
  EXPECT_EQ(RawRequest(c_.port(),
                       "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\n" + auth_ +
                           "Content-Encoding: gzip\r\nContent-Length: 1000\r\n\r\n",
                       1000),
            "HTTP/1.1 415 Unsupported Media Type");
  EXPECT_EQ(RawRequest(c_.port(), "POST /x HTTP/1.1\r\nHost: x\r\nContent-Encoding: br\r\nContent-Length: 10\r\n\r\n", 10),
            "HTTP/1.1 415 Unsupported Media Type");
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, ManyRangePartsAreRefused) {
  std::string ranges = "bytes=0-0";
  for (int i = 1; i < 10000; ++i) ranges += "," + std::to_string(i) + "-" + std::to_string(i);
  httplib::Client cli("127.0.0.1", c_.port());
  auto res = cli.Get("/api/v1/nodes", {{"Range", ranges}});
  ASSERT_TRUE(res);
  // A header that long is refused by the HTTP library's header cap (400); a
  // Range that fits is refused by the collector (416): 4xx either way.
  EXPECT_GE(res->status, 400);
  EXPECT_LT(res->status, 500);
  std::string some = "bytes=0-0";
  for (int i = 1; i < 100; ++i) some += "," + std::to_string(i) + "-" + std::to_string(i);
  auto fits = cli.Get("/api/v1/nodes", {{"Range", some}});
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->status, 416);
  auto one = cli.Get("/metrics", {{"Range", "bytes=0-10"}});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 416);
  ExpectNothingStoredAndAlive();
}

TEST_F(HardeningTest, DeeplyNestedReportIs400NotACrash) {
  json r = MakeReport("deep-1", "node-a", NowMs());
  std::string text = r.dump();
  text.pop_back();  // inside the top-level object: "extra": [[[[...]]]]
  text += ",\"extra\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  ASSERT_LT(text.size(), 4u << 20);
  TestCollector big;  // default cap (4 MiB) so the depth, not the size, is what is refused
  httplib::Client cli("127.0.0.1", big.port());
  auto res = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kTestToken}}, text,
                      "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("nested deeper than 32"), std::string::npos) << res->body;
  EXPECT_EQ(big.Rows("reports"), 0);
}

TEST(Identity, ANodeTokenReportsOnlyAsItsNode) {
  ApiOptions o;
  o.tokens = {NodeToken("node-a", "token-of-node-a"), NodeToken("node-b", "token-of-node-b"), NodeToken("fleet-token-x")};
  TestCollector c(o);
  httplib::Client cli("127.0.0.1", c.port());
  auto post = [&](const std::string& report_node, const std::string& token, const std::string& id) {
    return cli.Post("/api/v1/reports", {{"Authorization", "Bearer " + token}},
                    MakeReport(id, report_node, NowMs()).dump(), "application/json");
  };
  auto spoof = post("node-b", "token-of-node-a", "spoof-1");
  ASSERT_TRUE(spoof);
  EXPECT_EQ(spoof->status, 403);
  EXPECT_NE(spoof->body.find("may report only as node node-a"), std::string::npos) << spoof->body;
  EXPECT_EQ(c.Rows("reports"), 0);
  EXPECT_EQ(c.Rows("nodes"), 0);
  auto own = post("node-a", "token-of-node-a", "own-1");
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200) << own->body;
  auto fleet = post("node-c", "fleet-token-x", "fleet-1");
  ASSERT_TRUE(fleet);
  EXPECT_EQ(fleet->status, 200) << fleet->body;
  EXPECT_EQ(c.Rows("reports"), 2);
}

TEST(RequestGuard, NestingCountsBracketsOutsideStringsOnly) {
  EXPECT_FALSE(JsonNestingExceeds(R"({"a":[1,{"b":"[[[[[[["}]})", 3));
  EXPECT_TRUE(JsonNestingExceeds(R"({"a":[1,{"b":"x"}]})", 2));
  EXPECT_FALSE(JsonNestingExceeds(R"({"a":"\"[[[["})", 1));
}

TEST(RequestGuard, GetWithoutBodyPasses) {
  auto none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  EXPECT_FALSE(GuardRequest("GET", "/api/v1/nodes", none, 1024).has_value());
  auto zero = [](const std::string& h) -> std::optional<std::string> {
    if (h == "Content-Length") return std::string("0");
    return std::nullopt;
  };
  EXPECT_FALSE(GuardRequest("GET", "/metrics", zero, 1024).has_value());
  auto refused = GuardRequest("POST", "/api/v1/reports", zero, 1024);
  EXPECT_FALSE(refused.has_value());  // an empty report gets through to JSON validation (400 there)
}

}  // namespace
}  // namespace rdmascope::collector
