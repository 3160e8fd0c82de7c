// rdmascope-labcheck: assertions the lab tests run inside the VM, where there
// is no scripting language to parse JSON. Test-only tool.
//
//   rdmascope-labcheck inventory DEVINFO.txt PORTS.json DEV...
//       ibv_devinfo -v output vs rdmactl ports --json; exit 1 on any difference
//   rdmascope-labcheck counter-grown BEFORE.json AFTER.json DEV PORT COUNTER MIN
//       rdmactl counters --json taken twice; exit 1 unless hw_counters or
//       counters COUNTER grew by at least MIN
//   rdmascope-labcheck api-pairs [--sent] NODES.json PROBES.json NODE...
//       collector API answers: every NODE listed with ports, UD and RC
//       summaries (received > 0; with --sent: sent > 0, for a fleet with a
//       faulty node) for every ordered pair of them
//   rdmascope-labcheck event EVENTS.json KIND NODE open|closed [STATUS,...]
//       /api/v1/events: an open event of KIND involving NODE (with one of the
//       STATUS names when given), or none open any more and at least one closed
//   rdmascope-labcheck exactly-once DB LAST_ID[=LOST]...
//       the collector's SQLite database holds every report of each stopped
//       agent process exactly once (see report_ids.h)
//   rdmascope-labcheck rail PROBES.json SRC DST RAIL SINCE_MS clean|not-run
//       /api/v1/probes: for both transports, the newest SRC->DST summary of
//       RAIL ending at or after SINCE_MS is clean (sent > 0, 0 lost, no
//       errors, run) or not run because of the local port/device
//   rdmascope-labcheck rail-window PROBES.json SRC DST RAIL SINCE_MS UNTIL_MS
//       /api/v1/probes: for both transports, every SRC->DST summary of RAIL
//       ending within [SINCE_MS, UNTIL_MS] summed: at least one, sent > 0,
//       0 lost, no errors, none not run
//   rdmascope-labcheck latency PROBES.json SRC DST TRANSPORT SINCE_MS
//       /api/v1/probes: over SRC->DST TRANSPORT summaries ending at or after
//       SINCE_MS, the median of each summary's network and RTT p50
//       (network_p50_us, rtt_p50_us); prints "network_p50 X" (usec) alone
//       on its last line
//   rdmascope-labcheck port PORTS.json NODE DEV PORT STATE
//       /api/v1/ports: NODE's DEV/PORT has state_name STATE
//   rdmascope-labcheck report-order DB NODE...
//       every NODE's reports were stored in generation order (by arrival
//       sequence, the sequence part of the ids of one agent process increases)
//   rdmascope-labcheck no-event EVENTS.json KIND SINCE_MS
//       no event of KIND started at or after SINCE_MS
//   rdmascope-labcheck diagnosis DIAGNOSES.json SCOPE SUBJECT KIND SINCE_MS open|closed
//       /api/v1/diagnoses?all=1: the diagnosis SCOPE SUBJECT KIND opened at or
//       after SINCE_MS is open (prints "OPEN since_ms opened_at_ms"), or it
//       was open and is closed now (prints "CLOSED since_ms opened_at_ms
//       closed_at_ms"); the collector's times, epoch ms
//   rdmascope-labcheck first-summary DIAGNOSES.json PROBES.json SCOPE SUBJECT KIND SINCE_MS
//       for the open diagnosis SCOPE SUBJECT KIND: the first bad summary
//       behind it — the earliest interval end at or after SINCE_MS among the
//       bad summaries of the paths it cites (bad: lost probes, errors or not
//       run; for kind latency: p50 or min RTT at or over the diagnosis'
//       limits; for rnr / access: completions with that status).
//       Prints that time and "bad", or, when no cited summary is bad, the
//       earliest cited summary's end and "any"; SINCE_MS "none" when it cites
//       no path. Epoch ms.
//   rdmascope-labcheck opened-since DIAGNOSES.json SINCE_MS
//       /api/v1/diagnoses?all=1: prints how many diagnoses opened at or
//       after SINCE_MS (and each one); exit 0 when none did
//   rdmascope-labcheck closed-within DIAGNOSES.json SCOPE SUBJECT WINDOW_MS
//       /api/v1/diagnoses?all=1: exit 0 when no diagnosis of the element
//       SCOPE SUBJECT (any kind) closed within the last WINDOW_MS (this
//       machine's clock); else prints the latest close and when the window
//       ends (a return of the element within it reopens that diagnosis, with
//       its old opened_at)
//   rdmascope-labcheck lost-reports EVENTS.json NODE REASON
//       /api/v1/events: NODE's reports_lost events; prints each and, on its
//       last line, "lost N" (their counts added); exit 0 when there is at
//       least one, every one has status REASON and is ended
//   rdmascope-labcheck now-ms
//       this machine's clock (the collector's, in the VM), epoch ms
//   rdmascope-labcheck target-counts PROBES.json|SPOOL_DIR SRC SINCE_MS COUNT ROUNDS DEAD|- LIVE...
//       /api/v1/probes (or the reports spooled in an agent's SPOOL_DIR),
//       SRC's summaries ending at or after SINCE_MS: every
//       LIVE target has at least ROUNDS UD and ROUNDS RC summaries and each
//       one is full (sent COUNT, received COUNT, no errors); DEAD (unless
//       "-") has a UD summary with loss and an RC summary with an error or
//       loss. Prints every target's sent/received per summary, oldest first.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "tests/labcheck/inventory_crosscheck.h"
#include "tests/labcheck/report_ids.h"

namespace {

using rdmascope::labcheck::CrossCheck;
using rdmascope::labcheck::ParseDevinfo;

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "labcheck: cannot read %s\n", path.c_str());
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool ReadJson(const std::string& path, nlohmann::json* out) {
  std::string text;
  if (!ReadFile(path, &text)) return false;
  *out = nlohmann::json::parse(text, nullptr, false);
  if (out->is_discarded()) {
    std::fprintf(stderr, "labcheck: %s is not JSON\n", path.c_str());
    return false;
  }
  return true;
}

int Inventory(int argc, char** argv) {
  std::string devinfo;
  nlohmann::json ports;
  if (argc < 5 || !ReadFile(argv[2], &devinfo) || !ReadJson(argv[3], &ports)) return 2;
  std::vector<std::string> devices(argv + 4, argv + argc);
  auto parsed = ParseDevinfo(devinfo);
  size_t nports = 0, ngids = 0;
  for (const auto& d : parsed)
    for (const auto& p : d.ports) {
      ++nports;
      ngids += p.gids.size();
    }
  auto diffs = CrossCheck(parsed, ports, devices);
  for (const auto& d : diffs) std::printf("DIFF %s\n", d.c_str());
  std::printf("inventory cross-check: %zu device(s), %zu port(s), %zu GID(s) compared, %zu difference(s)\n",
              devices.size(), nports, ngids, diffs.size());
  return diffs.empty() ? 0 : 1;
}

std::optional<uint64_t> Counter(const nlohmann::json& j, const std::string& dev, int port, const std::string& name) {
  for (const auto& d : j["devices"]) {
    if (d["name"] != dev) continue;
    for (const auto& p : d["ports"]) {
      if (p["port"] != port) continue;
      for (const char* group : {"hw_counters", "counters"})
        if (p[group].contains(name) && p[group][name].is_number()) return p[group][name].get<uint64_t>();
    }
  }
  return std::nullopt;
}

int CounterGrown(int argc, char** argv) {
  nlohmann::json before, after;
  if (argc != 8 || !ReadJson(argv[2], &before) || !ReadJson(argv[3], &after)) return 2;
  std::string dev = argv[4], name = argv[6];
  int port = std::atoi(argv[5]);
  uint64_t min = std::strtoull(argv[7], nullptr, 10);
  auto b = Counter(before, dev, port, name), a = Counter(after, dev, port, name);
  if (!b || !a) {
    std::printf("FAIL %s port %d %s: absent (before %s, after %s)\n", dev.c_str(), port, name.c_str(),
                b ? "present" : "absent", a ? "present" : "absent");
    return 1;
  }
  uint64_t grown = *a >= *b ? *a - *b : 0;
  bool ok = *a >= *b && grown >= min;
  std::printf("%s %s port %d %s: %llu -> %llu (grew %llu, want >= %llu)\n", ok ? "OK" : "FAIL", dev.c_str(), port,
              name.c_str(), static_cast<unsigned long long>(*b), static_cast<unsigned long long>(*a),
              static_cast<unsigned long long>(grown), static_cast<unsigned long long>(min));
  return ok ? 0 : 1;
}

// Every node listed with ports; every ordered pair of them has UD and RC
// summaries with received > 0.
// A member as text for printing ("null" when absent), and as a number (def when absent or not a number).
std::string Field(const nlohmann::json& j, const char* k) { return j.contains(k) ? j[k].dump() : "null"; }
int64_t Num(const nlohmann::json& j, const char* k, int64_t def) {
  return j.contains(k) && j[k].is_number() ? j[k].get<int64_t>() : def;
}
// A string member, "" when absent or not a string (null peers, devices).
std::string Str(const nlohmann::json& j, const char* k) {
  return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : "";
}

int ApiPairs(int argc, char** argv) {
  nlohmann::json nodes, probes;
  const bool sent_only = argc > 2 && std::string(argv[2]) == "--sent";
  if (sent_only) {
    ++argv;
    --argc;
  }
  const char* field = sent_only ? "sent" : "received";
  if (argc < 6 || !ReadJson(argv[2], &nodes) || !ReadJson(argv[3], &probes)) return 2;
  std::vector<std::string> want(argv + 4, argv + argc);
  int missing = 0;
  for (const auto& name : want) {
    bool listed = false;
    for (const auto& n : nodes.value("nodes", nlohmann::json::array()))
      listed = listed || (n.value("name", "") == name && n.value("port_count", 0) > 0);
    if (!listed) {
      std::printf("MISSING node %s with ports\n", name.c_str());
      ++missing;
    }
  }
  for (const auto& src : want) {
    for (const auto& dst : want) {
      if (src == dst) continue;
      for (const char* transport : {"ud", "rc"}) {
        bool seen = false;
        for (const auto& p : probes.value("probes", nlohmann::json::array()))
          seen = seen || (p.value("src", "") == src && p.value("dst", "") == dst &&
                          p.value("transport", "") == transport && p.value(field, 0) > 0);
        if (!seen) {
          std::printf("MISSING %s summary %s -> %s\n", transport, src.c_str(), dst.c_str());
          ++missing;
        }
      }
    }
  }
  std::printf("api pairs: %zu node(s), %zu ordered pair(s) x 2 transports, %d missing\n", want.size(),
              want.size() * (want.size() - 1), missing);
  return missing == 0 ? 0 : 1;
}

// An event of KIND involving NODE (as node or peer) that is open, or, with
// "closed", none open any more and at least one closed.
int EventState(int argc, char** argv) {
  nlohmann::json events;
  if ((argc != 6 && argc != 7) || !ReadJson(argv[2], &events)) return 2;
  std::string kind = argv[3], node = argv[4], want = argv[5];
  const std::string statuses = argc == 7 ? "," + std::string(argv[6]) + "," : "";
  int open = 0, closed = 0;
  for (const auto& e : events.value("events", nlohmann::json::array())) {
    if (Str(e, "kind") != kind) continue;
    if (Str(e, "node") != node && Str(e, "peer") != node) continue;
    const nlohmann::json& status = e.contains("status") ? e["status"] : nlohmann::json();
    if (!statuses.empty() && (!status.is_string() || statuses.find("," + status.get<std::string>() + ",") == std::string::npos))
      continue;
    bool is_open = e.contains("ended_at_ms") && e["ended_at_ms"].is_null();
    (is_open ? open : closed)++;
    std::printf("%s %s event %s -> %s status %s: %s\n", is_open ? "OPEN" : "CLOSED", kind.c_str(),
                Str(e, "node").c_str(), Str(e, "peer").c_str(), Field(e, "status").c_str(),
                Field(e, "detail").substr(0, 300).c_str());
  }
  bool ok = want == "open" ? open > 0 : (open == 0 && closed > 0);
  std::printf("%s: %d open, %d closed %s event(s) involving %s, want %s\n", ok ? "OK" : "NOT YET", open, closed,
              kind.c_str(), node.c_str(), want.c_str());
  return ok ? 0 : 1;
}

// Reads every report id from the collector's database (read-only, so it can
// run beside a live collector) and checks them against the stopped agents'
// last ids.
int ExactlyOnce(int argc, char** argv) {
  if (argc < 4) return 2;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "exactly-once: cannot open %s: %s\n", argv[2], db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return 2;
  }
  sqlite3_busy_timeout(db, 5000);
  std::vector<std::string> stored;
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT id FROM reports", -1, &st, nullptr);
  if (rc == SQLITE_OK)
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      stored.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  if (rc != SQLITE_DONE) {
    std::fprintf(stderr, "exactly-once: SELECT id FROM reports: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return 2;
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  auto r = rdmascope::labcheck::CheckExactlyOnce(stored, std::vector<std::string>(argv + 3, argv + argc));
  for (const auto& line : r.lines) std::printf("%s\n", line.c_str());
  std::printf("exactly-once: %zu report(s) in the database, %d agent process(es) checked: %s\n", stored.size(),
              argc - 3, r.ok ? "OK" : "FAIL");
  return r.ok ? 0 : 1;
}


int RailState(int argc, char** argv) {
  nlohmann::json probes;
  if (argc != 8 || !ReadJson(argv[2], &probes)) return 2;
  const std::string src = argv[3], dst = argv[4], rail = argv[5], want = argv[7];
  const int64_t since = std::strtoll(argv[6], nullptr, 10);
  int ok = 0;
  const nlohmann::json rows = probes.value("probes", nlohmann::json::array());  // outlives `newest`
  for (const char* transport : {"ud", "rc"}) {
    const nlohmann::json* newest = nullptr;
    for (const auto& p : rows) {
      if (Str(p, "src") != src || Str(p, "dst") != dst || Str(p, "transport") != transport) continue;
      if (Str(p, "rail") != rail) continue;
      if (Num(p, "interval_end_ms", 0) < since) continue;
      if (!newest || Num(p, "interval_end_ms", 0) >= Num(*newest, "interval_end_ms", 0)) newest = &p;
    }
    if (!newest) {
      std::printf("NOT YET %s %s->%s rail %s: no summary since %lld\n", transport, src.c_str(), dst.c_str(),
                  rail.c_str(), static_cast<long long>(since));
      continue;
    }
    const nlohmann::json& p = *newest;
    const bool not_run = p.contains("not_run") && p["not_run"].is_string();
    bool good = false;
    if (want == "clean") {
      good = !not_run && Num(p, "sent", 0) > 0 && Num(p, "lost", 1) == 0 && Num(p, "error_count", 1) == 0;
    } else {
      good = not_run && p["not_run"].get<std::string>().find("local") == 0 && Num(p, "sent", 1) == 0;
    }
    std::printf("%s %s %s->%s rail %s local %s/%s remote %s/%s: sent %lld lost %lld errors %lld not_run %s\n",
                good ? "OK" : "NOT YET", transport, src.c_str(), dst.c_str(), rail.c_str(),
                Field(p, "local_device").c_str(), Field(p, "local_port").c_str(), Field(p, "remote_device").c_str(),
                Field(p, "remote_port").c_str(), static_cast<long long>(Num(p, "sent", -1)),
                static_cast<long long>(Num(p, "lost", -1)), static_cast<long long>(Num(p, "error_count", -1)),
                Field(p, "not_run").c_str());
    ok += good ? 1 : 0;
  }
  return ok == 2 ? 0 : 1;
}

int RailWindow(int argc, char** argv) {
  nlohmann::json probes;
  if (argc != 8 || !ReadJson(argv[2], &probes)) return 2;
  const std::string src = argv[3], dst = argv[4], rail = argv[5];
  const int64_t since = std::strtoll(argv[6], nullptr, 10), until = std::strtoll(argv[7], nullptr, 10);
  int ok = 0;
  for (const char* transport : {"ud", "rc"}) {
    int64_t summaries = 0, sent = 0, lost = 0, errors = 0, not_run = 0;
    for (const auto& p : probes.value("probes", nlohmann::json::array())) {
      if (Str(p, "src") != src || Str(p, "dst") != dst || Str(p, "transport") != transport) continue;
      const int64_t end = Num(p, "interval_end_ms", 0);
      if (Str(p, "rail") != rail || end < since || end > until) continue;
      ++summaries;
      sent += Num(p, "sent", 0);
      lost += Num(p, "lost", 0);
      errors += Num(p, "error_count", 0);
      if (p.contains("not_run") && p["not_run"].is_string()) ++not_run;
    }
    const bool good = summaries > 0 && sent > 0 && lost == 0 && errors == 0 && not_run == 0;
    std::printf("%s %s %s->%s rail %s over %.1f s: %lld summaries, sent %lld lost %lld errors %lld not run %lld\n",
                good ? "OK" : "FAIL", transport, src.c_str(), dst.c_str(), rail.c_str(),
                double(until - since) / 1000.0, static_cast<long long>(summaries), static_cast<long long>(sent),
                static_cast<long long>(lost), static_cast<long long>(errors), static_cast<long long>(not_run));
    ok += good ? 1 : 0;
  }
  return ok == 2 ? 0 : 1;
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

int Latency(int argc, char** argv) {
  nlohmann::json probes;
  if (argc != 7 || !ReadJson(argv[2], &probes)) return 2;
  const std::string src = argv[3], dst = argv[4], transport = argv[5];
  const int64_t since = std::strtoll(argv[6], nullptr, 10);
  std::vector<double> net, rtt;
  auto p50 = [](const nlohmann::json& s, const char* key, std::vector<double>* out) {
    if (s.contains(key) && s[key].is_number()) out->push_back(s[key].get<double>());
  };
  for (const auto& p : probes.value("probes", nlohmann::json::array())) {
    if (Str(p, "src") != src || Str(p, "dst") != dst || Str(p, "transport") != transport) continue;
    if (Num(p, "interval_end_ms", 0) < since) continue;
    p50(p, "network_p50_us", &net);
    p50(p, "rtt_p50_us", &rtt);
  }
  std::printf("%s %s->%s: %zu summaries; median of their p50s: network %.2f usec, rtt %.2f usec\n",
              transport.c_str(), src.c_str(), dst.c_str(), net.size(), MedianOf(net), MedianOf(rtt));
  std::printf("network_p50 %.2f\n", MedianOf(net));
  return net.empty() ? 1 : 0;
}

int PortState(int argc, char** argv) {
  nlohmann::json ports;
  if (argc != 7 || !ReadJson(argv[2], &ports)) return 2;
  const std::string node = argv[3], dev = argv[4], want = argv[6];
  const int port = std::atoi(argv[5]);
  for (const auto& p : ports.value("ports", nlohmann::json::array())) {
    if (Str(p, "node") != node || Str(p, "device") != dev || Num(p, "port", 0) != port) continue;
    std::string state = p.contains("state_name") && p["state_name"].is_string() ? p["state_name"].get<std::string>() : "?";
    std::printf("%s port %s %s/%d: %s (phys %s)\n", state == want ? "OK" : "NOT YET", node.c_str(), dev.c_str(), port,
                state.c_str(), Field(p, "phys_state_name").c_str());
    return state == want ? 0 : 1;
  }
  std::printf("NOT YET port %s %s/%d: not listed\n", node.c_str(), dev.c_str(), port);
  return 1;
}

int ReportOrder(int argc, char** argv) {
  if (argc < 4) return 2;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "report-order: cannot open %s\n", argv[2]);
    sqlite3_close(db);
    return 2;
  }
  sqlite3_busy_timeout(db, 5000);
  int bad = 0;
  for (int i = 3; i < argc; ++i) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT id, generated_at, received_seq FROM reports WHERE node = ?1 ORDER BY received_seq",
                           -1, &st, nullptr) != SQLITE_OK) {
      std::fprintf(stderr, "report-order: %s\n", sqlite3_errmsg(db));
      sqlite3_close(db);
      return 2;
    }
    sqlite3_bind_text(st, 1, argv[i], -1, SQLITE_TRANSIENT);
    std::map<std::string, long> last_seq;  // per agent process (the id without its sequence)
    std::string first, last;
    int n = 0, out_of_order = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string id = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      size_t dash = id.rfind('-');
      // Ids are NODE-<ms>-<random per process>-<sequence>.
      std::string random = id.substr(id.rfind('-', dash - 1) + 1, dash - id.rfind('-', dash - 1) - 1);
      long seq = std::atol(id.c_str() + dash + 1);
      auto it = last_seq.find(random);
      if (it != last_seq.end() && seq <= it->second) {
        if (out_of_order++ < 5) std::printf("OUT OF ORDER %s after sequence %ld\n", id.c_str(), it->second);
      }
      last_seq[random] = seq;
      if (first.empty()) first = id;
      last = id;
      ++n;
    }
    sqlite3_finalize(st);
    std::printf("%s: %d report(s) by arrival, first %s, last %s, %d out of generation order\n", argv[i], n,
                first.c_str(), last.c_str(), out_of_order);
    if (out_of_order > 0 || n == 0) ++bad;
  }
  sqlite3_close(db);
  return bad == 0 ? 0 : 1;
}

int NoEvent(int argc, char** argv) {
  nlohmann::json events;
  if (argc != 5 || !ReadJson(argv[2], &events)) return 2;
  const std::string kind = argv[3];
  const int64_t since = std::strtoll(argv[4], nullptr, 10);
  int n = 0;
  for (const auto& e : events.value("events", nlohmann::json::array())) {
    if (Str(e, "kind") != kind || Num(e, "started_at_ms", 0) < since) continue;
    ++n;
    std::printf("UNEXPECTED %s event on %s: %s\n", kind.c_str(), Str(e, "node").c_str(),
                Field(e, "detail").substr(0, 300).c_str());
  }
  std::printf("%d %s event(s) started since %lld\n", n, kind.c_str(), static_cast<long long>(since));
  return n == 0 ? 0 : 1;
}

int Diagnosis(int argc, char** argv) {
  nlohmann::json doc;
  if (argc != 8 || !ReadJson(argv[2], &doc)) return 2;
  const std::string scope = argv[3], subject = argv[4], kind = argv[5], want = argv[7];
  const int64_t since = std::strtoll(argv[6], nullptr, 10);
  for (const auto& d : doc.value("diagnoses", nlohmann::json::array())) {
    if (Str(d, "scope") != scope || Str(d, "subject") != subject || Str(d, "kind") != kind) continue;
    if (Num(d, "opened_at_ms", 0) < since) continue;
    const bool open = d.value("open", false);
    if (want == "open" && open) {
      std::printf("OPEN %lld %lld\n", static_cast<long long>(Num(d, "since_ms", 0)),
                  static_cast<long long>(Num(d, "opened_at_ms", 0)));
      return 0;
    }
    if (want == "closed" && !open) {
      std::printf("CLOSED %lld %lld %lld\n", static_cast<long long>(Num(d, "since_ms", 0)),
                  static_cast<long long>(Num(d, "opened_at_ms", 0)), static_cast<long long>(Num(d, "closed_at_ms", 0)));
      return 0;
    }
  }
  std::printf("NOT YET: no %s diagnosis %s %s %s opened since %lld\n", want.c_str(), scope.c_str(), subject.c_str(),
              kind.c_str(), static_cast<long long>(since));
  return 1;
}

int FirstSummary(int argc, char** argv) {
  nlohmann::json diags, probes;
  if (argc != 8 || !ReadJson(argv[2], &diags) || !ReadJson(argv[3], &probes)) return 2;
  const std::string scope = argv[4], subject = argv[5], kind = argv[6];
  const int64_t since = std::strtoll(argv[7], nullptr, 10);
  const nlohmann::json rows = probes.value("probes", nlohmann::json::array());
  for (const auto& d : diags.value("diagnoses", nlohmann::json::array())) {
    if (Str(d, "scope") != scope || Str(d, "subject") != subject || Str(d, "kind") != kind) continue;
    if (!d.value("open", false)) continue;
    double limit_us = 0, min_limit_us = 0;
    for (const auto& e : d.value("evidence", nlohmann::json::array())) {
      if (!e.is_object()) continue;
      if (e.contains("latency_limit_us") && e["latency_limit_us"].is_number())
        limit_us = e["latency_limit_us"].get<double>();
      if (e.contains("min_limit_us") && e["min_limit_us"].is_number()) min_limit_us = e["min_limit_us"].get<double>();
    }
    auto over = [](const nlohmann::json& p, const char* key, double limit) {
      return limit > 0 && p.contains(key) && p[key].is_number() && p[key].get<double>() >= limit;
    };
    // A responder fault (rnr, access) shows as its own completion status;
    // other failures on the same paths (e.g. while the faulty responder
    // restarts) are not its evidence.
    auto has_status = [](const nlohmann::json& p, const std::string& word) {
      auto by = p.find("errors_by_status");
      if (by == p.end() || !by->is_object()) return false;
      for (const auto& [k, v] : by->items())
        if (k.find(word) != std::string::npos && v.is_number() && v.get<double>() > 0) return true;
      return false;
    };
    auto bad = [&](const nlohmann::json& p) {
      if (kind == "latency") return over(p, "rtt_p50_us", limit_us) || over(p, "rtt_min_us", min_limit_us);
      if (kind == "rnr") return has_status(p, "RNR_RETRY_EXC");
      if (kind == "access") return has_status(p, "REM_ACCESS") || has_status(p, "REM_INV") || has_status(p, "REM_OP");
      const bool not_run = p.contains("not_run") && ((p["not_run"].is_boolean() && p["not_run"].get<bool>()) ||
                                                    (p["not_run"].is_number() && p["not_run"].get<int64_t>() != 0));
      return Num(p, "lost", 0) > 0 || Num(p, "error_count", 0) > 0 || not_run;
    };
    int64_t first_bad = 0, first_any = 0;
    for (const auto& path : d.value("paths", nlohmann::json::array())) {
      for (const auto& p : rows) {
        if (Str(p, "src") != Str(path, "src") || Str(p, "dst") != Str(path, "dst") ||
            Str(p, "transport") != Str(path, "transport"))
          continue;
        const int64_t end = Num(p, "interval_end_ms", 0);
        if (end < since) continue;
        if (first_any == 0 || end < first_any) first_any = end;
        if (bad(p) && (first_bad == 0 || end < first_bad)) first_bad = end;
      }
    }
    if (first_bad) std::printf("%lld bad\n", static_cast<long long>(first_bad));
    else if (first_any) std::printf("%lld any\n", static_cast<long long>(first_any));
    else std::printf("%lld none\n", static_cast<long long>(since));
    return 0;
  }
  std::printf("no open diagnosis %s %s %s\n", scope.c_str(), subject.c_str(), kind.c_str());
  return 1;
}

int OpenedSince(int argc, char** argv) {
  nlohmann::json diags;
  if (argc != 4 || !ReadJson(argv[2], &diags)) return 2;
  const int64_t since = std::strtoll(argv[3], nullptr, 10);
  int n = 0;
  for (const auto& d : diags.value("diagnoses", nlohmann::json::array())) {
    if (Num(d, "opened_at_ms", 0) < since) continue;
    ++n;
    std::printf("OPENED %s %s %s at %lld\n", Str(d, "scope").c_str(), Str(d, "subject").c_str(),
                Str(d, "kind").c_str(), static_cast<long long>(Num(d, "opened_at_ms", 0)));
  }
  std::printf("%d diagnosis(es) opened since %lld\n", n, static_cast<long long>(since));
  return n == 0 ? 0 : 1;
}

int64_t NowEpochMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int ClosedWithin(int argc, char** argv) {
  nlohmann::json diags;
  if (argc != 6 || !ReadJson(argv[2], &diags)) return 2;
  const std::string scope = argv[3], subject = argv[4];
  const int64_t window = std::strtoll(argv[5], nullptr, 10), now = NowEpochMs();
  int64_t latest = -1;
  for (const auto& d : diags.value("diagnoses", nlohmann::json::array())) {
    if (Str(d, "scope") != scope || Str(d, "subject") != subject || d.value("open", false)) continue;
    latest = std::max<int64_t>(latest, Num(d, "closed_at_ms", -1));
  }
  if (latest >= 0 && latest + window > now) {
    std::printf("NOT YET: a %s %s diagnosis closed at %lld; a return before %lld reopens it (%lld ms from now)\n",
                scope.c_str(), subject.c_str(), static_cast<long long>(latest),
                static_cast<long long>(latest + window), static_cast<long long>(latest + window - now));
    return 1;
  }
  std::printf("no %s %s diagnosis closed within the last %lld ms\n", scope.c_str(), subject.c_str(),
              static_cast<long long>(window));
  return 0;
}

int LostReports(int argc, char** argv) {
  nlohmann::json events;
  if (argc != 5 || !ReadJson(argv[2], &events)) return 2;
  const std::string node = argv[3], reason = argv[4];
  int64_t lost = 0;
  int n = 0, bad = 0;
  for (const auto& e : events.value("events", nlohmann::json::array())) {
    if (Str(e, "kind") != "reports_lost" || Str(e, "node") != node) continue;
    ++n;
    lost += Num(e, "count", 0);
    const bool ended = e.contains("ended_at_ms") && !e["ended_at_ms"].is_null();
    bad += (Str(e, "status") == reason && ended) ? 0 : 1;
    std::printf("%s reports_lost %s: %s, %lld report(s), %lld .. %s: %s\n", ended ? "ENDED" : "OPEN", node.c_str(),
                Str(e, "status").c_str(), static_cast<long long>(Num(e, "count", 0)),
                static_cast<long long>(Num(e, "started_at_ms", 0)),
                ended ? std::to_string(Num(e, "ended_at_ms", 0)).c_str() : "-", Str(e, "detail").c_str());
  }
  std::printf("lost %lld\n", static_cast<long long>(lost));
  return n > 0 && bad == 0 ? 0 : 1;
}

int NowMs() {
  std::printf("%lld\n", static_cast<long long>(NowEpochMs()));
  return 0;
}

// The probe entries of every report spooled in `dir`, as /api/v1/probes rows
// (src, dst, transport, sent, received, error_count, interval_end_ms).
nlohmann::json SpooledProbeRows(const std::string& dir) {
  nlohmann::json rows = nlohmann::json::array();
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
    if (f.path().extension() != ".json" || f.path().filename() == "last-corrupt.json") continue;
    nlohmann::json report;
    if (!ReadJson(f.path().string(), &report) || !report.is_object()) continue;
    for (const auto& e : report.value("probes", nlohmann::json::array())) {
      const nlohmann::json summary = e.value("summary", nlohmann::json::object());
      rows.push_back({{"src", report.value("node", "")},
                      {"dst", e.value("target", "")},
                      {"transport", e.value("transport", "")},
                      {"sent", summary.value("sent", -1)},
                      {"received", summary.value("received", -1)},
                      {"error_count", e.value("errors", nlohmann::json::array()).size()},
                      {"interval_end_ms", int64_t(e.value("interval_end_ms", 0.0))}});
    }
  }
  return nlohmann::json{{"probes", rows}};
}

int TargetCounts(int argc, char** argv) {
  nlohmann::json probes;
  if (argc < 9) return 2;
  std::error_code ec;
  if (std::filesystem::is_directory(argv[2], ec)) {
    probes = SpooledProbeRows(argv[2]);
  } else if (!ReadJson(argv[2], &probes)) {
    return 2;
  }
  const std::string src = argv[3], dead = argv[7];
  const int64_t since = std::strtoll(argv[4], nullptr, 10);
  const int64_t count = std::strtoll(argv[5], nullptr, 10);
  const size_t rounds = std::strtoull(argv[6], nullptr, 10);
  std::vector<std::string> targets(argv + 8, argv + argc);
  if (dead != "-") targets.push_back(dead);
  const nlohmann::json rows = probes.value("probes", nlohmann::json::array());
  int bad = 0;
  for (const auto& dst : targets) {
    for (const char* transport : {"ud", "rc"}) {
      std::vector<const nlohmann::json*> mine;
      for (const auto& p : rows)
        if (Str(p, "src") == src && Str(p, "dst") == dst && Str(p, "transport") == transport &&
            Num(p, "interval_end_ms", 0) >= since)
          mine.push_back(&p);
      std::sort(mine.begin(), mine.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
        return Num(*a, "interval_end_ms", 0) < Num(*b, "interval_end_ms", 0);
      });
      std::string list;
      size_t full = 0, failing = 0;
      for (const nlohmann::json* p : mine) {
        const int64_t sent = Num(*p, "sent", -1), recv = Num(*p, "received", -1), errs = Num(*p, "error_count", 0);
        list += " " + std::to_string(sent) + "/" + std::to_string(recv) + (errs ? "e" + std::to_string(errs) : "");
        full += (sent == count && recv == count && errs == 0) ? 1 : 0;
        failing += (recv < sent || errs > 0 || sent == 0) ? 1 : 0;
      }
      bool good;
      if (dst == dead) {
        good = failing > 0;
      } else {
        good = mine.size() >= rounds && full == mine.size();
      }
      bad += good ? 0 : 1;
      std::printf("%s %s %s %s->%s: %zu summaries, %zu full, %zu with loss or errors; sent/received:%s\n",
                  good ? "OK" : "NOT YET", dst == dead ? "stopped" : "live", transport, src.c_str(), dst.c_str(),
                  mine.size(), full, failing, list.c_str());
    }
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "inventory") return Inventory(argc, argv);
  if (cmd == "counter-grown") return CounterGrown(argc, argv);
  if (cmd == "api-pairs") return ApiPairs(argc, argv);
  if (cmd == "event") return EventState(argc, argv);
  if (cmd == "exactly-once") return ExactlyOnce(argc, argv);
  if (cmd == "rail") return RailState(argc, argv);
  if (cmd == "rail-window") return RailWindow(argc, argv);
  if (cmd == "latency") return Latency(argc, argv);
  if (cmd == "port") return PortState(argc, argv);
  if (cmd == "report-order") return ReportOrder(argc, argv);
  if (cmd == "no-event") return NoEvent(argc, argv);
  if (cmd == "diagnosis") return Diagnosis(argc, argv);
  if (cmd == "now-ms") return NowMs();
  if (cmd == "closed-within") return ClosedWithin(argc, argv);
  if (cmd == "lost-reports") return LostReports(argc, argv);
  if (cmd == "opened-since") return OpenedSince(argc, argv);
  if (cmd == "first-summary") return FirstSummary(argc, argv);
  if (cmd == "target-counts") return TargetCounts(argc, argv);
  std::fprintf(stderr,
               "usage: rdmascope-labcheck inventory DEVINFO.txt PORTS.json DEV...\n"
               "       rdmascope-labcheck counter-grown BEFORE.json AFTER.json DEV PORT COUNTER MIN\n"
               "       rdmascope-labcheck api-pairs [--sent] NODES.json PROBES.json NODE...\n"
               "       rdmascope-labcheck event EVENTS.json KIND NODE open|closed [STATUS,...]\n"
               "       rdmascope-labcheck exactly-once DB LAST_ID[=LOST]...\n"
               "       rdmascope-labcheck rail PROBES.json SRC DST RAIL SINCE_MS clean|not-run\n"
               "       rdmascope-labcheck rail-window PROBES.json SRC DST RAIL SINCE_MS UNTIL_MS\n"
               "       rdmascope-labcheck latency PROBES.json SRC DST TRANSPORT SINCE_MS\n"
               "       rdmascope-labcheck port PORTS.json NODE DEV PORT STATE\n"
               "       rdmascope-labcheck report-order DB NODE...\n"
               "       rdmascope-labcheck no-event EVENTS.json KIND SINCE_MS\n"
               "       rdmascope-labcheck diagnosis DIAGNOSES.json SCOPE SUBJECT KIND SINCE_MS open|closed\n"
               "       rdmascope-labcheck first-summary DIAGNOSES.json PROBES.json SCOPE SUBJECT KIND SINCE_MS\n"
               "       rdmascope-labcheck opened-since DIAGNOSES.json SINCE_MS\n"
               "       rdmascope-labcheck closed-within DIAGNOSES.json SCOPE SUBJECT WINDOW_MS\n"
               "       rdmascope-labcheck lost-reports EVENTS.json NODE REASON\n"
               "       rdmascope-labcheck now-ms\n"
               "       rdmascope-labcheck target-counts PROBES.json|SPOOL_DIR SRC SINCE_MS COUNT ROUNDS DEAD|- LIVE...\n");
  return 2;
}
