// GET endpoints of /api/v1. Query parameters: node, src, dst (names), since,
// until (ms since the epoch), limit, open (0/1), kind. A bad parameter is a
// 400 naming it.
#include <algorithm>
#include <cctype>

#include "collector/api_server.h"
#include "collector/event_kinds.h"
#include "collector/pinglist.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;

constexpr int64_t kHourMs = 3600LL * 1000;

bool Bad(httplib::Response& res, const std::string& param, const std::string& problem) {
  SendError(res, 400, "invalid query", {{"param", param}, {"problem", problem}});
  return false;
}

bool IntParam(const httplib::Request& req, httplib::Response& res, const char* name, int64_t min, int64_t max,
              int64_t* out) {
  if (!req.has_param(name)) return true;
  std::string v = req.get_param_value(name);
  bool ok = !v.empty() && v.size() <= 18;
  for (size_t i = 0; i < v.size(); ++i) ok = ok && ((v[i] >= '0' && v[i] <= '9') || (i == 0 && v[i] == '-' && v.size() > 1));
  if (!ok) return Bad(res, name, "expected an integer");
  int64_t n = std::stoll(v);
  if (n < min || n > max) return Bad(res, name, "expected " + std::to_string(min) + " to " + std::to_string(max));
  *out = n;
  return true;
}

bool NameParam(const httplib::Request& req, httplib::Response& res, const char* name, std::optional<std::string>* out) {
  if (!req.has_param(name)) return true;
  std::string v = req.get_param_value(name);
  if (v.empty() || v.size() > 128) return Bad(res, name, "expected 1 to 128 characters");
  for (char c : v)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return Bad(res, name, "contains a character outside [A-Za-z0-9._-]");
  *out = v;
  return true;
}

// A history query stopped at its deadline is 503 (ask again, narrower);
// anything else that failed in the store is 500.
template <typename T>
void Reply(httplib::Response& res, const Result<T>& r) {
  if (r.ok())
    SendJson(res, r.value());
  else if (r.status().message().rfind(kHistoryDeadlineError, 0) == 0)
    SendError(res, 503, "query too long", r.status().message());
  else
    SendError(res, 500, "store query failed", r.status().message());
}

}  // namespace

void ApiServer::GetNodes(const httplib::Request&, httplib::Response& res) {
  Reply(res, store_.Nodes(Now(), options_.stale_after_ms));
}

void ApiServer::GetNode(const httplib::Request& req, httplib::Response& res) {
  std::string name = req.matches[1];
  auto r = store_.Node(name, Now(), options_.stale_after_ms);
  if (!r.ok()) return SendError(res, 500, "store query failed", r.status().message());
  if (!r.value()) return SendError(res, 404, "unknown node", name);
  nlohmann::json node = std::move(*r.value());
  auto neighbours = store_.NodeNeighbours(name);
  if (!neighbours.ok()) return SendError(res, 500, "store query failed", neighbours.status().message());
  node["neighbours"] = std::move(neighbours).value();  // the switch port at the other end of each IB port
  SendJson(res, node);
}

void ApiServer::GetPorts(const httplib::Request& req, httplib::Response& res) {
  std::optional<std::string> node;
  if (!NameParam(req, res, "node", &node)) return;
  Reply(res, store_.Ports(node));
}

void ApiServer::GetCounters(const httplib::Request& req, httplib::Response& res) {
  std::optional<std::string> node;
  int64_t since = Now() - kHourMs, limit = 10000;
  if (!NameParam(req, res, "node", &node) || !IntParam(req, res, "since", 0, INT64_MAX / 2, &since) ||
      !IntParam(req, res, "limit", 1, 100000, &limit))
    return;
  Reply(res, store_.Counters(node, since, static_cast<int>(limit)));
}

void ApiServer::GetProbes(const httplib::Request& req, httplib::Response& res) {
  std::optional<std::string> src, dst;
  int64_t now = Now(), since = now - kHourMs, until = INT64_MAX / 2, limit = 10000;
  if (!NameParam(req, res, "src", &src) || !NameParam(req, res, "dst", &dst) ||
      !IntParam(req, res, "since", 0, INT64_MAX / 2, &since) || !IntParam(req, res, "until", 0, INT64_MAX / 2, &until) ||
      !IntParam(req, res, "limit", 1, 100000, &limit))
    return;
  if (until < since) return (void)Bad(res, "until", "must not be before since");
  Reply(res, store_.Probes(src, dst, since, until, static_cast<int>(limit)));
}

// GET /api/v1/probes/rollup?resolution=minute|hour: the history beyond the raw
// summaries' retention. since defaults to a day ago (minute) or a week ago (hour).
void ApiServer::GetProbeRollups(const httplib::Request& req, httplib::Response& res) {
  const std::string resolution = req.has_param("resolution") ? req.get_param_value("resolution") : "minute";
  if (resolution != "minute" && resolution != "hour") return (void)Bad(res, "resolution", "expected minute or hour");
  const bool hourly = resolution == "hour";
  std::optional<std::string> src, dst;
  int64_t now = Now(), since = now - (hourly ? 7 * 24 : 24) * kHourMs, until = INT64_MAX / 2, limit = 10000;
  if (!NameParam(req, res, "src", &src) || !NameParam(req, res, "dst", &dst) ||
      !IntParam(req, res, "since", 0, INT64_MAX / 2, &since) || !IntParam(req, res, "until", 0, INT64_MAX / 2, &until) ||
      !IntParam(req, res, "limit", 1, 100000, &limit))
    return;
  if (until < since) return (void)Bad(res, "until", "must not be before since");
  Reply(res, store_.ProbeRollups(hourly, src, dst, since, until, static_cast<int>(limit)));
}

void ApiServer::GetWorstPairs(const httplib::Request& req, httplib::Response& res) {
  int64_t since = Now() - options_.metrics_probe_window_ms, limit = 20;
  if (!IntParam(req, res, "since", 0, INT64_MAX / 2, &since) || !IntParam(req, res, "limit", 1, 1000, &limit)) return;
  Reply(res, store_.WorstPairs(since, static_cast<int>(limit)));
}

void ApiServer::GetEvents(const httplib::Request& req, httplib::Response& res) {
  std::optional<std::string> node, kind;
  int64_t open = 0, limit = 1000;
  if (!NameParam(req, res, "node", &node) || !NameParam(req, res, "kind", &kind) ||
      !IntParam(req, res, "open", 0, 1, &open) || !IntParam(req, res, "limit", 1, 100000, &limit))
    return;
  if (kind && !IsEventKind(*kind)) {
    std::string known;
    for (auto k : kEventKinds) known += (known.empty() ? "" : ", ") + std::string(k);
    return (void)Bad(res, "kind", "expected one of " + known);
  }
  Reply(res, store_.Events(open == 1, kind, node, static_cast<int>(limit)));
}

void ApiServer::GetPinglist(const httplib::Request& req, httplib::Response& res) {
  std::optional<std::string> node;
  if (!NameParam(req, res, "node", &node)) return;
  if (!node) return (void)Bad(res, "node", "is required: the node asking for its targets");
  // A node's report token reads only that node's pinglist (a read token or
  // the fleet token reads any); without a token reads are as open as the rest.
  const std::string authorization = req.get_header_value("Authorization");
  if (auto grant = TokenGrantOf(authorization, options_.tokens);
      grant && !grant->Fleet() && grant->node != *node && !ReadAuthorized(authorization, options_.read_tokens))
    return SendError(res, 403, "token not valid for this node",
                     {{"node", *node}, {"problem", "this token reads only the pinglist of node " + grant->node}});
  std::optional<std::string> rail;
  if (!NameParam(req, res, "rail", &rail)) return;
  auto nodes = store_.NodeInfos();
  if (!nodes.ok()) return SendError(res, 500, "store query failed", nodes.status().message());
  SendJson(res, BuildPinglist(*node, nodes.value(), Now(), options_.pinglist, rail.value_or("")));
}

// GET /api/v1/diagnoses[?all=1][&limit=N]: open diagnoses; all=1 adds closed ones.
void ApiServer::GetDiagnoses(const httplib::Request& req, httplib::Response& res) {
  int64_t all = 0, limit = 500;
  if (!IntParam(req, res, "all", 0, 1, &all) || !IntParam(req, res, "limit", 1, 100000, &limit)) return;
  Reply(res, store_.Diagnoses(all == 1, static_cast<int>(limit)));
}

}  // namespace rdmascope::collector
