// Hostile reads against the collector daemon (part of
// collector_hostile_input_test): a reader must not cost the collector more
// than the answer, and must not stop ingest.
//  - GET /metrics asking for brotli gets identity, asking for gzip gets gzip
//    at the fastest level (the gzip header's XFL byte is 4), never brotli.
//  - While two readers ask for /api/v1/ports over 100,000 ports without
//    pause, no report waits a quarter of a read for its acknowledgement: the
//    reads run on read-only connections, not under the writer's lock (where
//    a report waited for the read in progress).
// Prints one row per case: input, status, RSS before -> after, alive, extra.
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/collector/child_collector.h"
#include "tests/collector/hostile_support.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_reports.h"

namespace rdmascope::collector {
namespace {

using testing::ChildCollector;
using testing::RssKb;
using Clock = std::chrono::steady_clock;

constexpr char kToken[] = "token-of-node-a-123";
constexpr int kPortNodes = 1000, kPortsPerNode = 100;  // 100,000 rows of /api/v1/ports (its limit)

double MsSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// A whole HTTP/1.1 exchange on a fresh connection (the collector closes it
// after one answer): the head and the body as received.
struct RawAnswer {
  std::string head, body;
  std::string Header(const std::string& name) const {
    std::string lower_head = head;
    std::transform(lower_head.begin(), lower_head.end(), lower_head.begin(), ::tolower);
    std::string key = "\r\n" + name + ":";
    std::transform(key.begin(), key.end(), key.begin(), ::tolower);
    size_t at = lower_head.find(key);
    if (at == std::string::npos) return "";
    size_t from = head.find_first_not_of(' ', at + key.size()), to = head.find("\r\n", at + key.size());
    return head.substr(from, to - from);
  }
};

RawAnswer RawGet(int port, const std::string& path, const std::string& accept_encoding) {
  RawAnswer out;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return out;
  }
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  if (!accept_encoding.empty()) req += "Accept-Encoding: " + accept_encoding + "\r\n";
  req += "\r\n";
  (void)!::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string got;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<size_t>(n));
  ::close(fd);
  size_t end = got.find("\r\n\r\n");
  if (end == std::string::npos) return out;
  out.head = got.substr(0, end);
  out.body = got.substr(end + 4);
  return out;
}

std::string Gunzip(const std::string& in) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return "";
  std::string out;
  char buf[65536];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END ? out : "";
}

// Writes kPortNodes x kPortsPerNode port rows straight into the collector's
// database (stopped): inventory a fleet would have sent, without sending it.
bool FillPorts(const std::string& db_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) return false;
  bool ok = sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_stmt* st = nullptr;
  ok = ok && sqlite3_prepare_v2(db,
                                "INSERT INTO ports(node, device, port, state, state_name, phys_state, phys_state_name, "
                                "lid, sm_lid, link_layer, active_mtu, rate_gbps, rate_text, gids, fw, node_guid, "
                                "updated_at) VALUES (?1, ?2, ?3, 4, 'ACTIVE', 5, 'LinkUp', ?3, 1, 'InfiniBand', "
                                "4096, 200, '200 Gb/sec (4X HDR)', "
                                "'[{\"index\":0,\"gid\":\"fe80:0000:0000:0000:0002:c903:0001:0001\"}]', "
                                "'20.31.1014', '0002:c903:0001:0001', 1)",
                                -1, &st, nullptr) == SQLITE_OK;
  for (int n = 0; ok && n < kPortNodes; ++n) {
    const std::string node = "fleet-" + std::to_string(n);
    for (int p = 0; ok && p < kPortsPerNode; ++p) {
      const std::string device = "mlx5_" + std::to_string(p / 2);
      sqlite3_bind_text(st, 1, node.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 2, device.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int(st, 3, 1 + p % 2);
      ok = sqlite3_step(st) == SQLITE_DONE && sqlite3_reset(st) == SQLITE_OK;
    }
  }
  sqlite3_finalize(st);
  ok = ok && sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

bool Alive(int port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(10, 0);
  auto r = cli.Get("/healthz");
  return r && r->status == 200;
}

void Row(const std::string& name, const std::string& status, long before, long after, bool alive,
         const std::string& extra) {
  std::printf("%-48s %-30s %8ld kB -> %8ld kB  alive=%s  %s\n", name.c_str(), status.c_str(), before, after,
              alive ? "yes" : "no", extra.c_str());
  std::fflush(stdout);
}

TEST(HostileInput, ReadsNeitherCompressHardNorStallIngest) {
  testsupport::ScratchDir scratch("collector_hostile_reads");
  const std::string dir = scratch.path(), db = dir + "/c.db";
  std::ofstream(dir + "/tokens") << "node-a " << kToken << "\n";
  const std::vector<std::string> args = {"--db", db, "--token-file", dir + "/tokens"};
  std::string why;
  {
    ChildCollector first;  // creates the database
    ASSERT_GT(first.Start(COLLECTOR_PATH, args, dir + "/log0", 20000, &why), 0) << why;
    first.Stop(10000);
  }
  ASSERT_TRUE(FillPorts(db));
  ChildCollector child;
  const int port = child.Start(COLLECTOR_PATH, args, dir + "/log", 30000, &why);
  ASSERT_GT(port, 0) << why;

  auto post = [&](int i, double* ms) {
    httplib::Client cli("127.0.0.1", port);
    cli.set_read_timeout(60, 0);
    const std::string body = testing::MakeReport("r-" + std::to_string(i), "node-a", testing::NowMs()).dump();
    Clock::time_point t = Clock::now();
    auto r = cli.Post("/api/v1/reports", {{"Authorization", std::string("Bearer ") + kToken}}, body,
                      "application/json");
    *ms = MsSince(t);
    return r ? r->status : -1;
  };
  double ms = 0;
  ASSERT_EQ(post(0, &ms), 200);  // node-a in /metrics

  // /metrics: never brotli; gzip only at the fastest level.
  for (const std::string enc : {"br", "gzip", "br;q=1, gzip;q=0.5"}) {
    const long before = RssKb(child.pid());
    Clock::time_point t = Clock::now();
    RawAnswer a = RawGet(port, "/metrics", enc);
    const double took = MsSince(t);
    const std::string ce = a.Header("Content-Encoding");
    std::string text = ce == "gzip" ? Gunzip(a.body) : a.body;
    char extra[160];
    std::snprintf(extra, sizeof extra, "Content-Encoding: %s, %zu bytes (%zu as text) in %.1f ms",
                  ce.empty() ? "(none)" : ce.c_str(), a.body.size(), text.size(), took);
    Row("GET /metrics, Accept-Encoding: " + enc, a.head.substr(0, a.head.find("\r\n")), before, RssKb(child.pid()),
        Alive(port), extra);
    EXPECT_EQ(a.head.rfind("HTTP/1.1 200", 0), 0u) << a.head;
    EXPECT_NE(ce, "br") << "brotli at quality 11 costs the collector seconds of CPU per scrape";
    EXPECT_NE(text.find("rdmascope_node_last_report_timestamp_seconds{node=\"node-a\"}"), std::string::npos)
        << "Content-Encoding " << ce << ": " << text.substr(0, 300);
    if (enc == "br") {
      EXPECT_EQ(ce, "") << "a client that only takes brotli gets the text as is";
    } else {
      EXPECT_EQ(ce, "gzip");
      ASSERT_GT(a.body.size(), 9u);
      EXPECT_EQ(static_cast<unsigned char>(a.body[8]), 4) << "gzip XFL: 4 is the fastest level";
    }
  }

  // One read alone, then reports while readers repeat it without pause.
  const long before = RssKb(child.pid());
  httplib::Client reader("127.0.0.1", port);
  reader.set_read_timeout(120, 0);
  Clock::time_point t = Clock::now();
  auto alone = reader.Get("/api/v1/ports");
  const double alone_ms = MsSince(t);
  ASSERT_TRUE(alone && alone->status == 200) << (alone ? alone->body.substr(0, 300) : "no answer");
  ASSERT_GE(alone_ms, 200.0) << "the read must take long enough to show whether ingest waits for it";

  std::atomic<bool> stop{false};
  std::atomic<int> in_flight{0};
  std::mutex mu;
  std::condition_variable cv;
  int reads_done = 0, reads_ok = 0;
  std::vector<double> read_ms;  // each read's time while the reports go in
  std::vector<std::thread> readers;
  for (int i = 0; i < 2; ++i)
    readers.emplace_back([&] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_read_timeout(120, 0);
      while (!stop) {
        ++in_flight;
        const Clock::time_point began = Clock::now();
        auto r = cli.Get("/api/v1/ports");
        const double took = MsSince(began);
        --in_flight;
        std::lock_guard<std::mutex> lock(mu);
        if (reads_done >= 2) read_ms.push_back(took);
        ++reads_done;
        reads_ok += r && r->status == 200;
        cv.notify_all();
      }
    });
  {
    // Steady state: both readers are on their second read or later.
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(120), [&] { return reads_done >= 2; }))
        << "no read of /api/v1/ports finished within 120 s";
  }
  // Reports spread over one and a half reads, one every eighth of a read:
  // some of them arrive while a read has just begun.
  constexpr int kReports = 12;
  std::vector<double> acks;
  std::string statuses;
  int posted_during_reads = 0;
  const Clock::time_point first = Clock::now();
  for (int i = 1; i <= kReports; ++i) {
    std::this_thread::sleep_until(first + std::chrono::microseconds(static_cast<int64_t>(alone_ms * 1000 / 8) * (i - 1)));
    const bool reading = in_flight > 0;
    const int status = post(i, &ms);
    posted_during_reads += reading && in_flight > 0;
    acks.push_back(ms);
    statuses += (statuses.empty() ? "" : ",") + std::to_string(status);
    EXPECT_EQ(status, 200) << "report " << i << " while /api/v1/ports is read";
  }
  stop = true;
  for (auto& r : readers) r.join();
  std::vector<double> sorted = acks;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  std::sort(read_ms.begin(), read_ms.end());
  const double read_median = read_ms.empty() ? alone_ms : read_ms[read_ms.size() / 2];
  char extra[240];
  std::snprintf(extra, sizeof extra,
                "one read %.0f ms alone, %.0f ms beside the other; %.1f MB; ack median %.0f ms, max %.0f ms; %d of 12 "
                "acked while read; %d reads (%d ok)",
                alone_ms, read_median, static_cast<double>(alone->body.size()) / 1e6, median, sorted.back(),
                posted_during_reads, reads_done, reads_ok);
  Row("12 reports while 2 clients read 100,000 ports", "acks " + statuses, before, RssKb(child.pid()), Alive(port),
      extra);
  // Under the writer's lock every report that came while a read's query ran
  // waited for the rest of it, and the reads run back to back: measured with
  // the reads under the lock, ack median 427 and 480 ms (slowest 958 and
  // 740 ms) against one read alone of 682 and 633 ms; off the lock, median
  // 2 to 6 ms. The reference is one read alone (the test runs alone:
  // RUN_SERIAL). One slow ack of the twelve is allowed: on a freshly booted
  // virtual machine a single ack took 747 and 1057 ms while the median
  // stayed at 4 to 6 ms (every ack is printed above).
  std::string all_acks;
  for (double a : acks) all_acks += (all_acks.empty() ? "" : " ") + std::to_string(static_cast<int>(a));
  std::printf("acks in order (ms): %s\n", all_acks.c_str());
  EXPECT_LT(median, alone_ms / 10) << "reports waited for the reads";
  EXPECT_LT(sorted[sorted.size() - 2], alone_ms / 3) << "more than one report waited for the reads";
  EXPECT_GE(posted_during_reads, kReports * 2 / 3) << "the reads must run while the reports are posted";
  child.Stop(10000);
}

}  // namespace
}  // namespace rdmascope::collector
