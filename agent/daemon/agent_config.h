// Configuration of the agent's reporting daemon: a config file of
// `key = value` lines and command-line flags; flags win over the file.
//
// File contract: one `key = value` per line; blank lines and lines whose first
// non-blank character is '#' are ignored (there are no trailing comments: '#'
// inside a value is part of it). Unknown keys, repeated keys and bad values
// are errors of the form "FILE:LINE: key 'k': what is wrong". The keys and
// their defaults are documented in packaging/rdmascope-agent.conf.example.
//
// Flag contract: every key has a flag "--" + key with '_' -> '-', taking the
// value as the next argument or after '=' ("--interval 5", "--interval=5").
// --config FILE names the file (none by default: defaults plus flags) and
// --once is a switch. --labels replaces the file's labels as a whole.
// Arguments that are not ours are returned in `rest`, in order, for the
// caller's own parser (so responder options can share the command line).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/daemon/rail_paths.h"
#include "agent/daemon/rails.h"
#include "common/status.h"
#include "probes/probe_scheduler.h"

namespace rdmascope::agent {

struct AgentConfig {
  std::string collector;                           // "" = not configured; URLs, comma-separated (ParseCollectorUrls)
  std::string token_file;                          // "" = send no Authorization header
  std::string ca_file;                             // https collector: its CA (PEM); "" = system store
  std::string sysfs_root = "/sys";
  std::string node_name;                           // LoadAgentConfig: the hostname when unset
  std::string spool_dir = "/var/lib/rdmascope/spool";
  uint64_t spool_max_bytes = 64ull << 20;          // 64 MiB
  std::chrono::milliseconds report_interval{10000};
  std::chrono::milliseconds inventory_interval{60000};
  int control_port = 18610;                        // the responder's TCP control port
  std::string control_host;                        // address peers probe; "" = node_name
  std::vector<std::string> control_bind;
  std::string control_secret_file;                 // "" = no fleet secret
  bool control_secret_strict = true;               // control_secret_mode: strict (true) or lenient
  bool once = false;
  std::map<std::string, std::string> labels;
  // Rails (agent/daemon/rails.h): devices to serve and probe ("" = every device),
  // named ports, and probing. The repeatable flags --device, --rail and
  // --probe-target replace these keys' lists when given.
  std::vector<std::string> devices;
  std::vector<RailSpec> rails;
  std::vector<probes::ProbeTarget> probe_targets;  // none: the collector's pinglist
  uint64_t probe_count = 10;                       // per transport per target per rail per interval
  // Keys gid_index, gid_subnet, probe_traffic_class, probe_sl: per rail or
  // for every rail (agent/daemon/rail_paths.h).
  RailPaths probe_paths;
  // InfiniBand: sweep the whole subnet (topology + every port's counters) this
  // often and report it; 0 = never (the default: one or two agents per subnet).
  std::chrono::milliseconds fabric_sweep_interval{0};
  // With a sweep: also read every switch's forwarding table, for the
  // collector's traced paths (fabric_routes; on unless set to false).
  bool fabric_routes = true;
};

struct LoadedConfig {
  AgentConfig config;
  std::vector<std::string> rest;  // arguments left for another parser
};

// Applies one key (file spelling, e.g. "spool_max_bytes") to *config.
// The error names the key and the value.
Status ApplyConfigKey(const std::string& key, const std::string& value, AgentConfig* config);

// Applies the lines of a config file; `source` names it in errors.
Status ApplyConfigText(const std::string& text, const std::string& source, AgentConfig* config);

// Defaults, then the --config file, then the flags; fills node_name from the
// hostname when neither set it. Validates the result (see ValidateAgentConfig).
Result<LoadedConfig> LoadAgentConfig(const std::vector<std::string>& args);

// Cross-field checks: node_name 1..128 of [A-Za-z0-9._-], the collector URL
// (when set) parses. The error names the key.
Status ValidateAgentConfig(const AgentConfig& config);

// Labels from "k=v,k=v": at most kMaxUserLabels; keys 1..64 of [A-Za-z0-9_.-]
// other than the reserved control_port, control_host and rails; values trimmed, at
// most 256 characters, no ',' or control characters, may be empty; "" is no
// labels.
constexpr size_t kMaxUserLabels = 60;
Result<std::map<std::string, std::string>> ParseLabels(const std::string& text);

// The labels a report carries: the configured ones plus "control_port" (always)
// and "control_host" (when set), which the collector hands to the peers that
// probe this node.
std::map<std::string, std::string> ReportLabels(const AgentConfig& config);

// Every key a config file may hold, in documentation order.
std::vector<std::string> AgentConfigKeys();

// Help text for the flags above, for the executable's usage message.
extern const char kAgentConfigUsage[];

}  // namespace rdmascope::agent
