#include "bench/fleet_reads.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace rdmascope::collector::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Read {
  double ms = 0;  // best of three
  int status = 0;
  size_t bytes = 0;
  std::string body;
};

Read Time(int port, const std::string& path) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(120, 0);
  Read r;
  r.ms = 1e18;
  for (int i = 0; i < 3; ++i) {
    const auto s = Clock::now();
    auto res = cli.Get(path, {{"Authorization", std::string("Bearer ") + kFleetToken}});
    r.ms = std::min(r.ms, std::chrono::duration<double, std::milli>(Clock::now() - s).count());
    r.status = res ? res->status : 0;
    if (res) r.body = res->body;
  }
  r.bytes = r.body.size();
  return r;
}

}  // namespace

std::string LeaderOf(int port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(30, 0);  // a collector behind on its reports answers reads late
  auto m = cli.Get("/metrics", {{"Authorization", std::string("Bearer ") + kFleetToken}});
  if (!m) return "no answer (" + httplib::to_string(m.error()) + ")";
  const std::string key = "\nrdmascope_collector_leader ";
  const size_t at = m->body.find(key);
  if (at == std::string::npos) return "no leader gauge in its /metrics";
  return m->body.compare(at + key.size(), 1, "1") == 0 ? "leads" : "follows";
}

bool MeasureReads(int port, int64_t history_rows, const FleetArgs& a, const char* when) {
  const Read metrics = Time(port, "/metrics");
  const Read matrix = Time(port, "/api/v1/matrix");
  const Read pinglist = Time(port, "/api/v1/pinglist?node=node-0&rail=0");
  size_t series = 0;
  for (size_t at = 0; (at = metrics.body.find('\n', at)) != std::string::npos; ++at)
    if (at + 1 < metrics.body.size() && metrics.body[at + 1] != '#') ++series;
  json m = json::parse(matrix.body, nullptr, false);
  json p = json::parse(pinglist.body, nullptr, false);
  const size_t matrix_rows = m.is_object() ? m["rows"].size() : 0;
  const size_t targets = p.is_object() ? p["targets"].size() : 0;
  std::printf("reads %s (history: %lld probe summaries stored)\n", when, static_cast<long long>(history_rows));
  std::printf("  /metrics        %8.1f ms  (budget 500)  status %d, %zu series, %zu bytes, from %d nodes x %d pairs\n",
              metrics.ms, metrics.status, series, metrics.bytes, a.nodes, a.rails * a.targets * 2);
  std::printf("  /api/v1/matrix  %8.1f ms  (budget 300)  status %d, %zu rows, %zu bytes\n", matrix.ms, matrix.status,
              matrix_rows, matrix.bytes);
  std::printf("  pinglist        %8.2f ms  (budget 10)   status %d, %zu targets chosen from %d nodes\n", pinglist.ms,
              pinglist.status, targets, a.nodes);
  // Every (src, dst, transport) the fleet probes; rails fold into one cell.
  const size_t want_rows = static_cast<size_t>(a.nodes) * static_cast<size_t>(a.targets) * 2;
  bool good = metrics.status == 200 && matrix.status == 200 && pinglist.status == 200 && targets > 0;
  if (matrix_rows > want_rows || matrix_rows < want_rows / 2) {
    std::printf("  matrix rows %zu, expected about %zu\n", matrix_rows, want_rows);
    good = false;
  }
  return good;
}

}  // namespace rdmascope::collector::bench
