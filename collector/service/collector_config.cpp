#include "collector/service/collector_config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/text.h"

namespace rdmascope::collector {

bool IsPostgresDb(const std::string& db) {
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

const char kCollectorUsage[] =
    "usage: rdmascope-collector [OPTIONS]\n"
    "\n"
    "Receives agent reports, stores them in SQLite (or PostgreSQL), serves the REST API,\n"
    "pinglists, /metrics and the dashboard.\n"
    "\n"
    "options (config-file key in brackets; command line overrides the file):\n"
    "  --listen ADDR:PORT          [listen] address to serve on (default 127.0.0.1:9470)\n"
    "  --db PATH|URL               [db] SQLite database file (default ./rdmascope.db), or a PostgreSQL\n"
    "                              database: postgresql://USER@HOST:PORT/DB (libpq's URI; several\n"
    "                              collectors may share one). Its schema is made on first start\n"
    "  --db-password-file FILE     [db_password_file] PostgreSQL's password, the file's first line\n"
    "                              (keep it out of the URL: the URL shows in logs and process lists)\n"
    "  --token-file FILE           [token_file] accepted agent tokens, one per line: `NODE TOKEN`,\n"
    "                              `sweep NODE TOKEN` (may post fabric sweeps) or `* TOKEN` (fleet)\n"
    "  --no-auth                   [no_auth] accept reports without a token (trusted networks only)\n"
    "  --read-token-file FILE      [read_token_file] tokens (same format) required to read the API,\n"
    "                              /metrics and the dashboard: `Authorization: Bearer TOKEN`, or HTTP\n"
    "                              Basic with any user and the token as password (browsers prompt).\n"
    "                              /healthz stays open; agents fetch pinglists with their report token.\n"
    "                              Unset: reading is open to anyone who reaches the port\n"
    "  --tls-cert FILE             [tls_cert] PEM certificate (chain): serve HTTPS instead of HTTP\n"
    "  --tls-key FILE              [tls_key] PEM private key of --tls-cert (give both or neither)\n"
    "  --config FILE               JSON object or key=value lines with the keys below\n"
    "  --web-dir DIR               [web_dir] serve the dashboard from DIR instead of the copy\n"
    "                              built into this binary (for dashboard development)\n"
    "  --raw-retention-minutes N   [raw_retention_minutes] keep raw probe summaries, counter samples\n"
    "                              and WC errors N minutes (default 60); each hour of them\n"
    "                              costs about 27 MB per node of 8 rails x 20 targets x 2 transports\n"
    "  --retention-days N          [retention_days] the same in days; overrides the minutes when given\n"
    "  --minute-rollup-retention-days N  [minute_rollup_retention_days] keep per-minute probe rollups\n"
    "                              (per pair and transport) and report ids N days (default 1)\n"
    "  --rollup-retention-days N   [rollup_retention_days] keep hourly rollups, closed events and\n"
    "                              closed diagnoses N days (default 90)\n"
    "  --query-deadline-ms N       [query_deadline_ms] a database read for the API or the diagnosis\n"
    "                              (history, node, port and fabric lists, diagnoses) stops after N ms;\n"
    "                              the API answers 503 (default 5000)\n"
    "  --retention-interval-s N    [retention_interval_s] seconds between retention passes (default 60)\n"
    "  --report-interval-s N       [report_interval_s] the interval the fleet's agents report at (their\n"
    "                              --interval). The diagnosis counts in it: the summaries it votes over\n"
    "                              (2.5 intervals), when a node is silent, and when a diagnosis closes\n"
    "                              (after 2 clean intervals, more while it flaps; back within 6, it\n"
    "                              reopens) (default 10)\n"
    "  --diagnosis-interval-s N    [diagnosis_interval_s] seconds between diagnosis runs (where a fault\n"
    "                              is, GET /api/v1/diagnoses); 0 = half the report interval, at\n"
    "                              least 1 (default 0)\n"
    "  --diagnosis-latency-factor-pct N  [diagnosis_latency_factor_pct] a path is slow when its network\n"
    "                              time (its RTT less the responder's time) is at least N % of its rail's\n"
    "                              usual median (and 50 us over it); without network time, its RTT at\n"
    "                              N % of the median and 1 ms over it (default 300)\n"
    "  --max-body-bytes N          [max_body_bytes] largest report accepted (default 4194304)\n"
    "  --http-workers N            [http_workers] threads serving HTTP connections (default 8). A report\n"
    "                              holds its worker until it is committed, so this bounds the reports one\n"
    "                              commit can take; each worker holds at most one body of --max-body-bytes\n"
    "  --http-max-connections N    [http_max_connections] open HTTP connections at once; beyond it a new\n"
    "                              one is answered 503 and closed unread (default 4096)\n"
    "  --http-max-per-client N     [http_max_per_client] open connections from one client address; beyond\n"
    "                              it 503 (default 64; an agent uses one at a time)\n"
    "  --http-head-timeout-ms N    [http_head_timeout_ms] a request line and its headers must arrive within\n"
    "                              N ms of connecting, else 408 (default 10000)\n"
    "  --stale-after-s N           [stale_after_s] a node silent longer is stale (default 120)\n"
    "  --metrics-drop-after-s N    [metrics_drop_after_s] a node silent longer leaves /metrics (its ports,\n"
    "                              counters, WC errors and probes); stale nodes are marked by\n"
    "                              rdmascope_node_stale before that (default 3600; 0 keeps them)\n"
    "  --clock-skew-tolerance-s N  [clock_skew_tolerance_s] an agent clock off by more is not trusted: its\n"
    "                              report is stored at receive time and a clock_skew event opens (default 300);\n"
    "                              so is a report whose times are that far ahead, whatever its Date header\n"
    "  --clock-skew-refuse-s N     [clock_skew_refuse_s] an agent clock off by more is refused (400)\n"
    "                              (default 86400)\n"
    "  --metrics-worst-pairs N     [metrics_worst_pairs] pairs in rdmascope_probe_pair_rtt_p99_seconds\n"
    "                              (default 20)\n"
    "  --pinglist-max-targets N    [pinglist_max_targets] targets per node at most (default 128)\n"
    "  --pinglist-sources-per-group-pair N\n"
    "                              [pinglist_sources_per_group_pair] every ordered pair of groups (on each\n"
    "                              rail) is probed from N distinct nodes of the first group, or all of it\n"
    "                              when smaller, in every rotation period (default 3)\n"
    "  --pinglist-rotation-s N     [pinglist_rotation_s] the cross-group sources and destinations move on\n"
    "                              every N s, so every node of a group is probed from every other group in\n"
    "                              time (default 300)\n"
    "  --pinglist-group-label NAME [pinglist_group_label] report label naming the group (default group)\n"
    "  --topology FILE             [topology] the switch tier of a RoCE fabric, whose ECMP forwarding\n"
    "                              the collector cannot see (JSON, schemas/topology.schema.json): the leaf\n"
    "                              each node, rail or device hangs on, each leaf's uplinks, the spines.\n"
    "                              The diagnosis groups those ends by leaf (over the group label and IB\n"
    "                              neighbours) and names a switch-tier fault with its candidates (\"one of\n"
    "                              leaf-3's 8 uplinks\"); a file that does not parse stops the start\n"
    "  --pinglist-max-age-s N      [pinglist_max_age_s] leave out nodes silent longer (default 3600)\n"
    "  --max-destinations-per-node N\n"
    "                              [max_destinations_per_node] probe destinations one node may name: a\n"
    "                              report naming more is refused (422); the collector keeps the pairs of\n"
    "                              the N a node reported last in memory (default 1024; at least\n"
    "                              --pinglist-max-targets)\n"
    "  --forget-after-s N          [forget_after_s] a node silent N s is forgotten: its node, port,\n"
    "                              latest-counter, WC-total and neighbour rows and its state in memory;\n"
    "                              so are the ports, counters and neighbours a node stopped reporting.\n"
    "                              Probe pairs leave memory after N s or the raw retention, whichever is\n"
    "                              shorter (default 604800: 7 days)\n"
    "  --db-max-bytes N            [db_max_bytes] (SQLite) the database file grows no larger than N bytes; beyond\n"
    "                              it reports get 503 (agents keep them spooled) and /healthz says so until\n"
    "                              retention frees room (default 0: no cap, the disk is the limit)\n"
    "  --db-synchronous full|normal\n"
    "                              [db_synchronous] (SQLite) full: an acknowledged report survives power loss\n"
    "                              (default); normal: faster, survives a crash of the collector\n"
    "  -h, --help                  this help\n"
    "  --version                   the version and the git revision of this build\n"
    "\n"
    "SIGTERM or SIGINT stops the server, finishes the current request and closes the database.\n";

namespace {

// "FILE:LINE: key: why", or "--option: why" for the command line.
Status Bad(const std::string& origin, const std::string& key, const std::string& why) {
  if (origin.rfind("--", 0) == 0) return Status::Error(origin + ": " + why);
  return Status::Error(origin + ": " + key + ": " + why);
}

bool ParseInt(const std::string& v, int64_t min, int64_t max, int64_t* out) {
  if (v.empty() || v.size() > 18) return false;
  for (char c : v)
    if (c < '0' || c > '9') return false;
  int64_t n = std::stoll(v);
  if (n < min || n > max) return false;
  *out = n;
  return true;
}

}  // namespace

Status SetCollectorKey(CollectorConfig* c, const std::string& key, const std::string& value, const std::string& origin) {
  struct IntKey {
    const char* name;
    int64_t* field;
    int64_t min, max;
  };
  const IntKey ints[] = {
      {"raw_retention_minutes", &c->raw_retention_minutes, 10, 60LL * 24 * 36500},
      {"query_deadline_ms", &c->query_deadline_ms, 10, 600000},
      {"retention_days", &c->retention_days, 1, 36500},
      {"minute_rollup_retention_days", &c->minute_rollup_retention_days, 1, 36500},
      {"rollup_retention_days", &c->rollup_retention_days, 1, 36500},
      {"retention_interval_s", &c->retention_interval_s, 1, 86400},
      {"report_interval_s", &c->report_interval_s, 1, 3600},
      {"diagnosis_interval_s", &c->diagnosis_interval_s, 0, 3600},
      {"diagnosis_latency_factor_pct", &c->diagnosis_latency_factor_pct, 110, 100000},
      {"max_body_bytes", &c->max_body_bytes, 1024, 1LL << 30},
      {"http_workers", &c->http_workers, 1, static_cast<int64_t>(kMaxHttpWorkers)},
      {"http_max_connections", &c->http_max_connections, 16, 1000000},
      {"http_max_per_client", &c->http_max_per_client, 1, 1000000},
      {"http_head_timeout_ms", &c->http_head_timeout_ms, 100, 600000},
      {"stale_after_s", &c->stale_after_s, 1, 86400 * 30},
      {"metrics_worst_pairs", &c->metrics_worst_pairs, 0, 10000},
      {"metrics_drop_after_s", &c->metrics_drop_after_s, 0, 86400 * 365},
      {"clock_skew_tolerance_s", &c->clock_skew_tolerance_s, 1, 86400 * 365},
      {"clock_skew_refuse_s", &c->clock_skew_refuse_s, 1, 86400 * 3650},
      {"pinglist_max_targets", &c->pinglist_max_targets, 0, 100000},
      {"pinglist_sources_per_group_pair", &c->pinglist_sources_per_group_pair, 1, 64},
      {"pinglist_rotation_s", &c->pinglist_rotation_s, 1, 86400 * 7},
      {"pinglist_max_age_s", &c->pinglist_max_age_s, 1, 86400 * 365},
      {"db_max_bytes", &c->db_max_bytes, 0, 1LL << 50},
      {"max_destinations_per_node", &c->max_destinations_per_node, 1, 1000000},
      {"forget_after_s", &c->forget_after_s, 1, 86400LL * 36500},
  };
  for (const IntKey& k : ints) {
    if (key != k.name) continue;
    if (!ParseInt(value, k.min, k.max, k.field))
      return Bad(origin, key, "expected an integer from " + std::to_string(k.min) + " to " + std::to_string(k.max) +
                                  ", got \"" + value + "\"");
    return Status::Ok();
  }
  if (key == "pinglist_cross_group_targets")
    return Bad(origin, key,
               "is retired: cross-group targets are now assigned so that every pair of groups is covered; "
               "remove it (pinglist_sources_per_group_pair sets how many sources cover each pair, default 3)");
  if (key == "listen") {
    size_t colon = value.rfind(':');
    int64_t port = 0;
    if (colon == std::string::npos || colon == 0 || !ParseInt(value.substr(colon + 1), 0, 65535, &port))
      return Bad(origin, key, "expected ADDR:PORT, e.g. 127.0.0.1:9470 or [::1]:9470, got \"" + value + "\"");
    std::string host = value.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    c->listen_host = host;
    c->listen_port = static_cast<int>(port);
  } else if (std::string* text = key == "db"                     ? &c->db
                                 : key == "db_password_file"     ? &c->db_password_file
                                 : key == "token_file"           ? &c->token_file
                                 : key == "read_token_file"      ? &c->read_token_file
                                 : key == "tls_cert"             ? &c->tls_cert
                                 : key == "tls_key"              ? &c->tls_key
                                 : key == "web_dir"              ? &c->web_dir
                                 : key == "pinglist_group_label" ? &c->pinglist_group_label
                                 : key == "topology"             ? &c->topology
                                                                 : nullptr) {
    if (value.empty()) return Bad(origin, key, "must not be empty");
    *text = value;
  } else if (key == "no_auth") {
    if (value != "true" && value != "false" && value != "1" && value != "0")
      return Bad(origin, key, "expected true or false");
    c->no_auth = value == "true" || value == "1";
  } else if (key == "db_synchronous") {
    if (value != "full" && value != "normal") return Bad(origin, key, "expected full or normal");
    c->db_synchronous_full = value == "full";
  } else {
    return Bad(origin, key, "unknown setting (see rdmascope-collector --help)");
  }
  return Status::Ok();
}

Status LoadCollectorConfigFile(CollectorConfig* c, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error("cannot read config file " + path + ": " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::string_view trimmed = Trim(text, kBlanksAndLineEnds);
  if (!trimmed.empty() && trimmed[0] == '{') {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return Status::Error("config file " + path + ": not a valid JSON object");
    for (const auto& [k, v] : j.items()) {
      std::string value = v.is_string() ? v.get<std::string>() : v.dump();
      if (Status s = SetCollectorKey(c, k, value, path); !s.ok()) return s;
    }
    return Status::Ok();
  }
  std::istringstream lines(text);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    std::string t(Trim(line, kBlanksAndLineEnds));
    if (t.empty() || t[0] == '#') continue;
    size_t eq = t.find('=');
    std::string origin = path + ":" + std::to_string(n);
    if (eq == std::string::npos) return Status::Error(origin + ": expected key=value, got \"" + t + "\"");
    const std::string key(Trim(t.substr(0, eq), kBlanksAndLineEnds)), value(Trim(t.substr(eq + 1), kBlanksAndLineEnds));
    if (Status s = SetCollectorKey(c, key, value, origin); !s.ok()) return s;
  }
  return Status::Ok();
}

Result<CollectorConfig> ParseCollectorArgs(const std::vector<std::string>& args) {
  CollectorConfig c;
  // The file first, so the command line overrides it wherever --config stands.
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--config") {
      if (i + 1 >= args.size()) return Result<CollectorConfig>::Error("--config needs a file");
      if (Status s = LoadCollectorConfigFile(&c, args[i + 1]); !s.ok()) return s;
    } else if (args[i].rfind("--config=", 0) == 0) {
      if (Status s = LoadCollectorConfigFile(&c, args[i].substr(9)); !s.ok()) return s;
    }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      c.help = true;
    } else if (a == "--no-auth") {
      c.no_auth = true;
    } else if (a == "--config") {
      ++i;
    } else if (a.rfind("--config=", 0) == 0) {
      continue;
    } else if (a.rfind("--", 0) == 0) {
      std::string name = a.substr(2), value;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else {
        if (i + 1 >= args.size()) return Result<CollectorConfig>::Error(a + " needs a value");
        value = args[++i];
      }
      std::string key = name;
      for (char& ch : key)
        if (ch == '-') ch = '_';
      if (key == "no_auth" || key == "help") return Result<CollectorConfig>::Error(a + " takes no value");
      if (Status s = SetCollectorKey(&c, key, value, "--" + name); !s.ok()) return s;
    } else {
      return Result<CollectorConfig>::Error("unexpected argument \"" + a + "\" (see --help)");
    }
  }
  if (c.max_destinations_per_node < c.pinglist_max_targets)
    return Result<CollectorConfig>::Error(
        "--max-destinations-per-node (" + std::to_string(c.max_destinations_per_node) +
        ") is below --pinglist-max-targets (" + std::to_string(c.pinglist_max_targets) +
        "): the reports of the collector's own pinglists would be refused; raise it");
  if (c.tls_cert.empty() != c.tls_key.empty())
    return Result<CollectorConfig>::Error("--tls-cert and --tls-key go together: give both (HTTPS) or neither (HTTP)");
  if (IsPostgresDb(c.db)) {
    if (c.db_max_bytes != 0)
      return Result<CollectorConfig>::Error(
          "--db-max-bytes caps a SQLite file; a PostgreSQL database's size is the server's to limit: remove it");
  } else if (!c.db_password_file.empty()) {
    return Result<CollectorConfig>::Error("--db-password-file is for a PostgreSQL --db (postgresql://...); --db " +
                                          c.db + " is a SQLite file");
  }
  return c;
}

}  // namespace rdmascope::collector
