#include "agent/daemon/agent_config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "agent/client/collector_url.h"
#include "common/text.h"

namespace rdmascope::agent {

const char kAgentConfigUsage[] =
    "Reporting (flags win over the config file; see rdmascope-agent.conf.example):\n"
    "  --config FILE             read `key = value` settings from FILE\n"
    "  --collector URL[,URL...]  collector base URL, e.g. http://collector:8080; several, comma-\n"
    "                            separated (collectors sharing one PostgreSQL database): reports\n"
    "                            and pinglists go to the first that answers, and move to the next\n"
    "                            when it cannot be reached or answers 5xx (report ids keep each\n"
    "                            report stored once)\n"
    "  --token-file FILE         file holding the bearer token for the collector\n"
    "  --ca-file FILE            https:// collector: PEM file of the CA that signed its certificate\n"
    "                            (default: the system's CA store); the certificate is always verified\n"
    "  --sysfs-root DIR          sysfs root (default /sys)\n"
    "  --node-name NAME          node name in reports (default: the hostname)\n"
    "  --spool-dir DIR           queue for undelivered reports (default /var/lib/rdmascope/spool)\n"
    "  --spool-max-bytes N       spool size cap in bytes (default 67108864 = 64 MiB); past it, or when\n"
    "                            the disk is full, the oldest reports go first, and the collector is\n"
    "                            told how many and from when (a reports_lost event)\n"
    "  --interval S              report interval in seconds (default 10)\n"
    "  --inventory-interval S    full inventory interval in seconds (default 60)\n"
    "  --control-port P          responder TCP control port (default 18610)\n"
    "  --control-host ADDR       address peers use to reach the control port (default: node name)\n"
    "  --control-secret-file FILE  fleet secret file: peers must prove it on the control port, and\n"
    "                            this agent proves it to its targets (default: none)\n"
    "  --control-secret-mode M   strict (default): with a secret, refuse peers that do not\n"
    "                            authenticate; lenient: serve them too (while rolling out a secret\n"
    "                            or upgrading from control protocol v1)\n"
    "  --control-bind A,A        addresses the control port listens on (default: the served ports'\n"
    "                            RoCE IPv4 addresses plus those of control_host / the node name)\n"
    "  --labels k=v,k=v          labels sent with every report (e.g. group=rack1)\n"
    "  --devices DEV,DEV         serve and probe only these devices' ports (default: every device)\n"
    "  --rails NAME=DEV[/PORT],...  name rails (default names: 0, 1, ... in sorted (device, port) order,\n"
    "                            kept while the agent runs and across restarts in\n"
    "                            SPOOL_DIR/rail-names.json: a late device takes the next free one)\n"
    "  --probe-targets [NAME=]HOST[:PORT],...  probe these agents (default: the collector's pinglist)\n"
    "  --probe-count N           probes per transport per target per rail per interval (default 10)\n"
  "  Probe path (each takes VALUE for every rail and/or RAIL=VALUE items, e.g. 104,storage=96):\n"
  "  --probe-traffic-class TC  traffic class 0..255 of the probes: the GRH traffic class, on RoCE v2\n"
  "                            the IP TOS byte = DSCP x 4 + ECN (DSCP 26 -> 104), so probes ride the\n"
  "                            workload's lossless class; RC responders echo on it too (default 0)\n"
  "  --probe-sl SL             InfiniBand service level 0..15 of the probes (default 0)\n"
  "  --gid-index I             local GID index 0..255 the probes leave from (default: the RoCE v2\n"
  "                            IPv4-mapped GID)\n"
  "  --gid-subnet A.B.C.D/N    instead: the RoCE v2 GID whose IPv4 address lies in this subnet\n"
    "  --fabric-sweep-interval S InfiniBand: sweep the subnet (topology, all port counters) every S\n"
    "                            seconds and report it; 0 = never (default; enable on 1-2 nodes per subnet;\n"
    "                            the collector needs a token line `sweep NODE TOKEN` for this node)\n"
    "  --fabric-routes true|false  with a sweep, also read every switch's forwarding table so the\n"
    "                            collector can trace probed paths (default true)\n"
    "  --once                    send one report and exit (non-zero if not delivered)\n";

namespace {

constexpr uint64_t kMinSpoolBytes = 64 * 1024;
constexpr long kMaxIntervalS = 86400;

// A decimal integer in [lo, hi]; nullopt otherwise.
std::optional<uint64_t> ParseUnsigned(const std::string& v, uint64_t lo, uint64_t hi) {
  if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  errno = 0;
  unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
  if (errno != 0 || n < lo || n > hi) return std::nullopt;
  return n;
}

Status Bad(const std::string& key, const std::string& value, const std::string& what) {
  return Status::Error("key '" + key + "': " + what + ", got '" + value + "'");
}

bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; }

// "a, b,,c" -> {"a", "b", "c"}.
std::vector<std::string> SplitList(const std::string& v) {
  std::vector<std::string> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = std::string(Trim(item));
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

using Setter = Status (*)(const std::string& key, const std::string& value, AgentConfig* c);

Status SetNonEmpty(const std::string& key, const std::string& value, std::string* out) {
  if (value.empty()) return Bad(key, value, "needs a value");
  *out = value;
  return Status::Ok();
}

Status SetSeconds(const std::string& key, const std::string& value, std::chrono::milliseconds* out) {
  auto n = ParseUnsigned(value, 1, kMaxIntervalS);
  if (!n) return Bad(key, value, "needs whole seconds 1.." + std::to_string(kMaxIntervalS));
  *out = std::chrono::seconds(*n);
  return Status::Ok();
}

Status SetRailPath(const std::string& key, const std::string& value, AgentConfig* c) {
  Status s = ApplyRailPathKey(key, value, &c->probe_paths);
  return s.ok() ? s : Status::Error("key '" + key + "': " + s.message());
}

struct KeyDef {
  const char* key;
  Setter set;
};

const KeyDef kKeys[] = {
    {"collector", [](const std::string&, const std::string& v, AgentConfig* c) {
       c->collector = v;  // checked by ValidateAgentConfig
       return Status::Ok();
     }},
    {"token_file", [](const std::string&, const std::string& v, AgentConfig* c) {
       c->token_file = v;
       return Status::Ok();
     }},
    {"ca_file", [](const std::string& k, const std::string& v, AgentConfig* c) {
       return SetNonEmpty(k, v, &c->ca_file);
     }},
    {"sysfs_root", [](const std::string& k, const std::string& v, AgentConfig* c) {
       return SetNonEmpty(k, v, &c->sysfs_root);
     }},
    {"node_name", [](const std::string&, const std::string& v, AgentConfig* c) {
       c->node_name = v;  // "" = the hostname; checked by ValidateAgentConfig
       return Status::Ok();
     }},
    {"spool_dir", [](const std::string& k, const std::string& v, AgentConfig* c) {
       return SetNonEmpty(k, v, &c->spool_dir);
     }},
    {"spool_max_bytes", [](const std::string& k, const std::string& v, AgentConfig* c) {
       auto n = ParseUnsigned(v, kMinSpoolBytes, UINT64_MAX / 2);
       if (!n) return Bad(k, v, "needs a byte count of at least " + std::to_string(kMinSpoolBytes));
       c->spool_max_bytes = *n;
       return Status::Ok();
     }},
    {"interval", [](const std::string& k, const std::string& v, AgentConfig* c) {
       return SetSeconds(k, v, &c->report_interval);
     }},
    {"inventory_interval", [](const std::string& k, const std::string& v, AgentConfig* c) {
       return SetSeconds(k, v, &c->inventory_interval);
     }},
    {"control_port", [](const std::string& k, const std::string& v, AgentConfig* c) {
       auto n = ParseUnsigned(v, 1, 65535);
       if (!n) return Bad(k, v, "needs a TCP port 1..65535");
       c->control_port = int(*n);
       return Status::Ok();
     }},
    {"control_host", [](const std::string& k, const std::string& v, AgentConfig* c) {
       if (v.size() > 256 || !std::all_of(v.begin(), v.end(), [](char ch) { return NameChar(ch) || ch == ':'; })) {
         return Bad(k, v, "needs a host name or IP address");
       }
       c->control_host = v;
       return Status::Ok();
     }},
    {"control_secret_file", [](const std::string&, const std::string& v, AgentConfig* c) {
       c->control_secret_file = v;  // "" = no fleet secret (the default)
       return Status::Ok();
     }},
    {"control_secret_mode", [](const std::string& k, const std::string& v, AgentConfig* c) {
       if (v != "strict" && v != "lenient") return Bad(k, v, "needs strict or lenient");
       c->control_secret_strict = v == "strict";
       return Status::Ok();
     }},
    {"control_bind", [](const std::string& k, const std::string& v, AgentConfig* c) {
       c->control_bind.clear();
       for (const std::string& item : SplitList(v)) {
         if (item.size() > 64 || !std::all_of(item.begin(), item.end(), [](char ch) {
               return std::isxdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == ':';
             })) {
           return Bad(k, v, "needs numeric IPv4/IPv6 addresses");
         }
         c->control_bind.push_back(item);
       }
       return Status::Ok();
     }},
    {"devices", [](const std::string& k, const std::string& v, AgentConfig* c) {
       c->devices.clear();
       for (const std::string& item : SplitList(v)) {
         if (!DeviceNameOk(item)) return Bad(k, v, "needs device names (1..63 of [A-Za-z0-9_.-])");
         c->devices.push_back(item);
       }
       return Status::Ok();
     }},
    {"rails", [](const std::string& k, const std::string& v, AgentConfig* c) {
       auto rails = ParseRailList(v);
       if (!rails.ok()) return Bad(k, v, rails.status().message());
       c->rails = std::move(rails).value();
       return Status::Ok();
     }},
    {"probe_targets", [](const std::string& k, const std::string& v, AgentConfig* c) {
       c->probe_targets.clear();
       for (const std::string& item : SplitList(v)) {
         auto t = probes::ParseProbeTarget(item);
         if (!t.ok()) return Bad(k, v, t.status().message());
         c->probe_targets.push_back(*t);
       }
       return Status::Ok();
     }},
    {"probe_count", [](const std::string& k, const std::string& v, AgentConfig* c) {
       auto n = ParseUnsigned(v, 1, 10000);
       if (!n) return Bad(k, v, "needs a number 1..10000");
       c->probe_count = *n;
       return Status::Ok();
     }},
    {"gid_index", [](const std::string& k, const std::string& v, AgentConfig* c) { return SetRailPath(k, v, c); }},
    {"gid_subnet", [](const std::string& k, const std::string& v, AgentConfig* c) { return SetRailPath(k, v, c); }},
    {"probe_traffic_class", [](const std::string& k, const std::string& v, AgentConfig* c) { return SetRailPath(k, v, c); }},
    {"probe_sl", [](const std::string& k, const std::string& v, AgentConfig* c) { return SetRailPath(k, v, c); }},
    {"fabric_sweep_interval", [](const std::string& k, const std::string& v, AgentConfig* c) {
       if (v == "0") {
         c->fabric_sweep_interval = std::chrono::milliseconds(0);
         return Status::Ok();
       }
       return SetSeconds(k, v, &c->fabric_sweep_interval);
     }},
    {"fabric_routes", [](const std::string& k, const std::string& v, AgentConfig* c) {
       if (v != "true" && v != "false" && v != "1" && v != "0") return Bad(k, v, "needs true or false");
       c->fabric_routes = v == "true" || v == "1";
       return Status::Ok();
     }},
    {"labels", [](const std::string& k, const std::string& v, AgentConfig* c) {
       auto labels = ParseLabels(v);
       if (!labels.ok()) return Bad(k, v, labels.status().message());
       c->labels = std::move(labels).value();
       return Status::Ok();
     }},
};

const KeyDef* FindKey(const std::string& key) {
  for (const KeyDef& d : kKeys)
    if (key == d.key) return &d;
  return nullptr;
}

std::string FlagToKey(const std::string& flag) {
  std::string key = flag.substr(2);
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("config file " + path + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::Error("config file " + path + ": read failed");
  return ss.str();
}

Result<std::string> Hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) {
    return Status::Error(std::string("node_name: gethostname failed: ") + std::strerror(errno) +
                         "; set node_name or --node-name");
  }
  return std::string(buf);
}

}  // namespace

std::vector<std::string> AgentConfigKeys() {
  std::vector<std::string> keys;
  for (const KeyDef& d : kKeys) keys.push_back(d.key);
  return keys;
}

Result<std::map<std::string, std::string>> ParseLabels(const std::string& text) {
  std::map<std::string, std::string> out;
  if (Trim(text).empty()) return out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = std::string(Trim(item));
    size_t eq = item.find('=');
    if (eq == std::string::npos) return Status::Error("label '" + item + "' is not k=v");
    std::string k(Trim(item.substr(0, eq)));
    std::string v(Trim(item.substr(eq + 1)));
    if (k.empty() || k.size() > 64 || !std::all_of(k.begin(), k.end(), NameChar)) {
      return Status::Error("label key '" + k + "' must be 1..64 of [A-Za-z0-9_.-]");
    }
    if (k == "control_port" || k == "control_host" || k == "rails") {
      return Status::Error("label key '" + k + "' is reserved: set the key " + k + " instead");
    }
    if (v.size() > 256) return Status::Error("label '" + k + "' has more than 256 characters");
    if (!std::all_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; })) {
      return Status::Error("label '" + k + "' holds a control character");
    }
    if (out.count(k)) return Status::Error("label key '" + k + "' repeated");
    out[k] = v;
    if (out.size() > kMaxUserLabels) return Status::Error("more than " + std::to_string(kMaxUserLabels) + " labels");
  }
  return out;
}

std::map<std::string, std::string> ReportLabels(const AgentConfig& config) {
  std::map<std::string, std::string> labels = config.labels;
  labels["control_port"] = std::to_string(config.control_port);
  if (!config.control_host.empty()) labels["control_host"] = config.control_host;
  return labels;
}

Status ApplyConfigKey(const std::string& key, const std::string& value, AgentConfig* config) {
  const KeyDef* def = FindKey(key);
  if (!def) return Status::Error("unknown key '" + key + "'");
  return def->set(key, value, config);
}

Status ApplyConfigText(const std::string& text, const std::string& source, AgentConfig* config) {
  std::stringstream ss(text);
  std::string line;
  std::map<std::string, int> seen;  // key -> line
  int number = 0;
  while (std::getline(ss, line)) {
    ++number;
    const std::string where = source + ":" + std::to_string(number) + ": ";
    std::string t(Trim(line));
    if (t.empty() || t[0] == '#') continue;
    size_t eq = t.find('=');
    if (eq == std::string::npos) return Status::Error(where + "expected `key = value`, got '" + t + "'");
    std::string key(Trim(t.substr(0, eq)));
    std::string value(Trim(t.substr(eq + 1)));
    if (key == "once" || key == "config") {
      return Status::Error(where + "key '" + key + "' is a command-line flag only");
    }
    auto prev = seen.find(key);
    if (prev != seen.end()) {
      return Status::Error(where + "key '" + key + "' repeated (first on line " + std::to_string(prev->second) +
                           ")");
    }
    seen[key] = number;
    Status s = ApplyConfigKey(key, value, config);
    if (!s.ok()) return Status::Error(where + s.message());
  }
  return Status::Ok();
}

Status ValidateAgentConfig(const AgentConfig& c) {
  if (c.node_name.empty() || c.node_name.size() > 128 ||
      !std::all_of(c.node_name.begin(), c.node_name.end(), NameChar)) {
    return Status::Error("key 'node_name': must be 1..128 of [A-Za-z0-9._-], got '" + c.node_name + "'");
  }
  if (!c.collector.empty()) {
    auto urls = client::ParseCollectorUrls(c.collector);
    if (!urls.ok()) return Status::Error("key 'collector': " + urls.status().message());
  }
  return Status::Ok();
}

Result<LoadedConfig> LoadAgentConfig(const std::vector<std::string>& args) {
  // Pass 1: split our flags (as key/value pairs) from the rest.
  std::vector<std::pair<std::string, std::string>> flags;
  std::string config_file;
  LoadedConfig out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      out.rest.push_back(a);
      continue;
    }
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    if (name == "--once") {
      if (eq != std::string::npos) return Status::Error("--once takes no value");
      out.config.once = true;
      continue;
    }
    std::string key = FlagToKey(name);
    if (name != "--config" && !FindKey(key)) {
      out.rest.push_back(a);
      continue;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return Status::Error(name + " needs a value");
    }
    if (name == "--config") {
      config_file = value;
    } else {
      flags.emplace_back(key, value);
    }
  }
  // Pass 2: file, then flags.
  if (!config_file.empty()) {
    auto text = ReadFile(config_file);
    if (!text.ok()) return text.status();
    Status s = ApplyConfigText(*text, config_file, &out.config);
    if (!s.ok()) return s;
  }
  for (const auto& [key, value] : flags) {
    Status s = ApplyConfigKey(key, value, &out.config);
    if (!s.ok()) {
      std::string flag = "--" + key;
      std::replace(flag.begin(), flag.end(), '_', '-');
      return Status::Error(flag + ": " + s.message());
    }
  }
  if (out.config.node_name.empty()) {
    auto host = Hostname();
    if (!host.ok()) return host.status();
    out.config.node_name = *host;
  }
  Status s = ValidateAgentConfig(out.config);
  if (!s.ok()) return s;
  return out;
}

}  // namespace rdmascope::agent
