// The collector daemon against hostile input, as a process: each request of
// the list is answered 4xx, the collector stays up, its resident memory grows
// by less than 20 MB over the whole list, and nothing is stored. Prints one
// row per case: status, RSS before and after, rows stored.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/collector/child_collector.h"
#include "tests/collector/hostile_support.h"
#include "tests/support/raw_http.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::ChildCollector;
using testing::CountRows;
using testing::MakeReport;
using testing::NowMs;
using testing::RssKb;

constexpr char kTokenA[] = "token-of-node-a-123";

std::string Raw(int port, const std::string& head, const std::string& body, size_t filler_bytes) {
  return rdmascope::testsupport::RawHttpRequest(port, head + body, filler_bytes, 30);
}

// `bytes` zeros, gzip-compressed (a bomb: ~1000:1).
std::string GzipZeros(size_t bytes) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  std::string zeros(1 << 20, '\0'), out;
  char buf[1 << 16];
  for (size_t done = 0; done < bytes; done += zeros.size()) {
    z.next_in = reinterpret_cast<Bytef*>(zeros.data());
    z.avail_in = static_cast<uInt>(zeros.size());
    int flush = done + zeros.size() >= bytes ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      deflate(&z, flush);
      out.append(buf, sizeof buf - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

std::string Post(const std::string& path, const std::string& token, const std::string& body) {
  std::ostringstream h;
  h << "POST " << path << " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
  if (!token.empty()) h << "Authorization: Bearer " << token << "\r\n";
  h << "Content-Length: " << body.size() << "\r\n\r\n";
  return h.str();
}

TEST(HostileInput, EveryCaseIs4xxTheCollectorStaysUpAndNothingIsStored) {
  testsupport::ScratchDir scratch("collector_hostile_input_test");
  const std::string dir = scratch.path();
  std::ofstream(dir + "/tokens") << "node-a " << kTokenA << "\nnode-b token-of-node-b-456\n";
  ChildCollector child;
  std::string why;
  const int port = child.Start(COLLECTOR_PATH, {"--db", dir + "/c.db", "--token-file", dir + "/tokens"},
                               dir + "/log", 20000, &why);
  ASSERT_GT(port, 0) << why;

  json deep = MakeReport("deep-1", "node-a", NowMs());
  std::string deep_text = deep.dump();
  deep_text.pop_back();
  deep_text += ",\"extra\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  const std::string bomb = GzipZeros(size_t{1} << 30);  // 1 GiB of zeros
  std::string ranges = "bytes=0-0";
  for (int i = 1; i < 10000; ++i) ranges += "," + std::to_string(i) + "-" + std::to_string(i);
  const std::string spoof = MakeReport("spoof-1", "node-b", NowMs()).dump();
  const std::string next_year = MakeReport("future-1", "node-a", NowMs() + 365LL * 86400 * 1000).dump();

  struct Case {
    std::string name, head, body;
    size_t filler;
  };
  const Case cases[] = {
      {"chunked POST to /anything", "POST /anything HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", "",
       64u << 20},
      {"1 GB body without length",
       std::string("POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ") + kTokenA + "\r\n\r\n", "",
       size_t{1} << 30},
      {"gzip bomb (1 GiB inflated)",
       std::string("POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nAuthorization: Bearer ") +
           kTokenA + "\r\nContent-Length: " + std::to_string(bomb.size()) + "\r\n\r\n",
       bomb, 0},
      {"10,000 Range parts", "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nRange: " + ranges + "\r\n\r\n", "", 0},
      {"100,000-deep nested report", Post("/api/v1/reports", kTokenA, deep_text), deep_text, 0},
      {"node B's report with node A's token", Post("/api/v1/reports", kTokenA, spoof), spoof, 0},
      {"report dated next year", Post("/api/v1/reports", kTokenA, next_year), next_year, 0},
  };
  const long rss_start = RssKb(child.pid());
  std::printf("%-38s %-32s %10s %10s %6s\n", "case", "status", "RSS before", "RSS after", "rows");
  for (const Case& c : cases) {
    const long before = RssKb(child.pid());
    std::string status = Raw(port, c.head, c.body, c.filler);
    const long after = RssKb(child.pid());
    const int64_t rows = CountRows(dir + "/c.db", "reports") + CountRows(dir + "/c.db", "nodes") +
                         CountRows(dir + "/c.db", "probe_summaries");
    std::printf("%-38s %-32s %7ld kB %7ld kB %6lld\n", c.name.c_str(), status.c_str(), before, after,
                static_cast<long long>(rows));
    EXPECT_EQ(status.rfind("HTTP/1.1 4", 0), 0u) << c.name << ": " << status;
    EXPECT_EQ(rows, 0) << c.name;
    httplib::Client cli("127.0.0.1", port);
    auto health = cli.Get("/healthz");
    ASSERT_TRUE(health && health->status == 200) << "collector down after " << c.name << "; log:\n" << child.Log();
  }
  const long rss_end = RssKb(child.pid());
  std::printf("RSS growth over the whole list: %ld kB (limit 20480 kB)\n", rss_end - rss_start);
  EXPECT_LT(rss_end - rss_start, 20 * 1024);
  child.Stop(10000);
}

}  // namespace
}  // namespace rdmascope::collector
