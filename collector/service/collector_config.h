// rdmascope-collector settings: defaults, --config FILE, command line.
//
// Contract: a config file is JSON (an object) when its first non-blank
// character is '{', else key=value lines ('#' starts a comment). Keys are the
// long option names with '_' for '-' (retention_days=7). Command-line options
// override the file. Unknown keys and bad values are errors naming the key and
// where it came from. Defaults are in kCollectorUsage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collector/http/http_workers.h"
#include "common/status.h"

namespace rdmascope::collector {

// Whether db names a PostgreSQL database (postgresql:// or postgres://),
// not a SQLite file.
bool IsPostgresDb(const std::string& db);

struct CollectorConfig {
  std::string listen_host = "127.0.0.1";
  int listen_port = 9470;
  std::string db = "./rdmascope.db";  // a SQLite file, or a postgresql:// URL (IsPostgresDb)
  std::string db_password_file;       // PostgreSQL's password, beside the URL (never in it)
  std::string token_file;
  std::string read_token_file;  // "" = the read API and dashboard are open
  std::string tls_cert;         // both set: serve HTTPS only
  std::string tls_key;
  bool no_auth = false;
  std::string web_dir;
  int64_t raw_retention_minutes = 60;
  int64_t query_deadline_ms = 5000;
  int64_t retention_days = 0;  // raw retention in days; 0: raw_retention_minutes decides
  int64_t minute_rollup_retention_days = 1;
  int64_t rollup_retention_days = 90;
  int64_t retention_interval_s = 60;
  int64_t report_interval_s = 10;    // the agents' --interval: what the diagnosis counts in
  int64_t diagnosis_interval_s = 0;  // 0: half the report interval, at least 1 s
  int64_t diagnosis_latency_factor_pct = 300;  // a path is slow at this % of its transport's median p50
  int64_t max_body_bytes = 4 << 20;
  int64_t http_workers = static_cast<int64_t>(kDefaultHttpWorkers);
  int64_t http_max_connections = 4096;
  int64_t http_max_per_client = 64;
  int64_t http_head_timeout_ms = 10000;
  int64_t stale_after_s = 120;
  int64_t metrics_drop_after_s = 3600;
  int64_t clock_skew_tolerance_s = 300;
  int64_t clock_skew_refuse_s = 86400;
  int64_t metrics_worst_pairs = 20;
  int64_t pinglist_max_targets = 128;
  int64_t pinglist_sources_per_group_pair = 3;
  int64_t pinglist_rotation_s = 300;
  int64_t pinglist_max_age_s = 3600;
  std::string pinglist_group_label = "group";
  std::string topology;  // --topology FILE: leaves, uplinks, spines of a RoCE fabric ("" none)
  int64_t db_max_bytes = 0;  // 0: no cap
  int64_t max_destinations_per_node = 1024;
  int64_t forget_after_s = 7LL * 86400;
  bool db_synchronous_full = true;
  bool help = false;
};

extern const char kCollectorUsage[];

// argv without the program name.
Result<CollectorConfig> ParseCollectorArgs(const std::vector<std::string>& args);

// Applies one setting; `origin` names where it came from for the error text.
Status SetCollectorKey(CollectorConfig* c, const std::string& key, const std::string& value, const std::string& origin);

// Reads a config file into c.
Status LoadCollectorConfigFile(CollectorConfig* c, const std::string& path);

}  // namespace rdmascope::collector
