// GET endpoints of /api/v1. Query parameters: node, src, dst (names), since,
// until (ms since the epoch), limit, open (0/1), kind, rates (0/1: counters
// with their per-second rates). A bad parameter is a 400 naming it.
#include "collector/http/api_params.h"
#include "collector/http/api_server.h"
#include "collector/core/event_kinds.h"
#include "collector/readmodel/pinglist.h"
#include "common/counter_rates.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;

constexpr int64_t kHourMs = 3600LL * 1000;

}  // namespace

void ApiServer::GetNodes(const httplib::Request& req, httplib::Response& res) {
  int64_t limit = HistoryQueries::kListLimit;
  if (!IntParam(req, res, "limit", 1, HistoryQueries::kListLimit, &limit)) return;
  ReplyStore(res, store_.history.Nodes(Now(), options_.stale_after_ms, static_cast<int>(limit)), "the node list", options_.log);
}

void ApiServer::GetNode(const httplib::Request& req, httplib::Response& res) {
  std::string name = req.matches[1];
  auto r = store_.history.Node(name, Now(), options_.stale_after_ms);
  if (!r.ok()) return SendStoreFailure(res, r.status(), "node " + name, options_.log);
  if (!r.value()) return SendError(res, 404, "unknown node", name);
  nlohmann::json node = std::move(*r.value());
  auto neighbours = store_.history.NodeNeighbours(name);
  if (!neighbours.ok()) return SendStoreFailure(res, neighbours.status(), "node " + name + "'s neighbours", options_.log);
  node["neighbours"] = std::move(neighbours).value();  // the switch port at the other end of each IB port
  SendJson(res, node);
}

void ApiServer::GetCounters(const httplib::Request& req, httplib::Response& res) {
  std::optional<std::string> node;
  int64_t since = Now() - kHourMs, limit = 10000, rates = 0;
  if (!NameParam(req, res, "node", &node) || !IntParam(req, res, "since", 0, INT64_MAX / 2, &since) ||
      !IntParam(req, res, "limit", 1, 100000, &limit) || !IntParam(req, res, "rates", 0, 1, &rates))
    return;
  auto samples = store_.history.Counters(node, since, static_cast<int>(limit), /*with_identity=*/rates == 1);
  if (rates == 1 && samples.ok()) AddCounterRates(samples.value()["samples"]);  // common/counter_rates.h
  ReplyStore(res, samples, "counter samples", options_.log);
}

void ApiServer::GetProbes(const httplib::Request& req, httplib::Response& res) {
  std::optional<std::string> src, dst;
  int64_t now = Now(), since = now - kHourMs, until = INT64_MAX / 2, limit = 10000;
  if (!NameParam(req, res, "src", &src) || !NameParam(req, res, "dst", &dst) ||
      !IntParam(req, res, "since", 0, INT64_MAX / 2, &since) || !IntParam(req, res, "until", 0, INT64_MAX / 2, &until) ||
      !IntParam(req, res, "limit", 1, 100000, &limit))
    return;
  if (until < since) return (void)BadParam(res, "until", "must not be before since");
  ReplyStore(res, store_.history.Probes(src, dst, since, until, static_cast<int>(limit)), "probe summaries", options_.log);
}

// GET /api/v1/probes/rollup?resolution=minute|hour: the history beyond the raw
// summaries' retention. since defaults to a day ago (minute) or a week ago (hour).
void ApiServer::GetProbeRollups(const httplib::Request& req, httplib::Response& res) {
  const std::string resolution = req.has_param("resolution") ? req.get_param_value("resolution") : "minute";
  if (resolution != "minute" && resolution != "hour") return (void)BadParam(res, "resolution", "expected minute or hour");
  const bool hourly = resolution == "hour";
  std::optional<std::string> src, dst;
  int64_t now = Now(), since = now - (hourly ? 7 * 24 : 24) * kHourMs, until = INT64_MAX / 2, limit = 10000;
  if (!NameParam(req, res, "src", &src) || !NameParam(req, res, "dst", &dst) ||
      !IntParam(req, res, "since", 0, INT64_MAX / 2, &since) || !IntParam(req, res, "until", 0, INT64_MAX / 2, &until) ||
      !IntParam(req, res, "limit", 1, 100000, &limit))
    return;
  if (until < since) return (void)BadParam(res, "until", "must not be before since");
  ReplyStore(res, store_.history.ProbeRollups(hourly, src, dst, since, until, static_cast<int>(limit)), "probe rollups",
             options_.log);
}

void ApiServer::GetWorstPairs(const httplib::Request& req, httplib::Response& res) {
  int64_t since = Now() - options_.metrics_probe_window_ms, limit = 20;
  if (!IntParam(req, res, "since", 0, INT64_MAX / 2, &since) || !IntParam(req, res, "limit", 1, 1000, &limit)) return;
  ReplyStore(res, store_.read.WorstPairs(since, static_cast<int>(limit)), "the worst pairs", options_.log);
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
    return (void)BadParam(res, "kind", "expected one of " + known);
  }
  ReplyStore(res, store_.history.Events(open == 1, kind, node, static_cast<int>(limit)), "events", options_.log);
}

void ApiServer::GetPinglist(const httplib::Request& req, httplib::Response& res) {
  std::optional<std::string> node;
  if (!NameParam(req, res, "node", &node)) return;
  if (!node) return (void)BadParam(res, "node", "is required: the node asking for its targets");
  // A node's report token reads only that node's pinglist (a read token or
  // the fleet token reads any); without a token reads are as open as the rest.
  const std::string authorization = req.get_header_value("Authorization");
  if (auto grant = TokenGrantOf(authorization, options_.tokens);
      grant && !grant->Fleet() && grant->node != *node && !ReadAuthorized(authorization, options_.read_tokens))
    return SendError(res, 403, "token not valid for this node",
                     {{"node", *node}, {"problem", "this token reads only the pinglist of node " + grant->node}});
  std::optional<std::string> rail;
  if (!NameParam(req, res, "rail", &rail)) return;
  // The link coverage targets of the last diagnosis pass (read model).
  const auto link_targets = store_.read.snapshot().CoverageTargetsNow();
  auto pinglist = pinglists_.For(*node, rail.value_or(""), Now(), [this] { return store_.read.NodeInfos(); },
                                 link_targets.get());
  if (!pinglist.ok()) return SendStoreFailure(res, pinglist.status(), "the node list", options_.log);
  SendJson(res, pinglist.value());
}

// GET /api/v1/diagnoses[?all=1][&limit=N]: open diagnoses; all=1 adds closed ones.
void ApiServer::GetDiagnoses(const httplib::Request& req, httplib::Response& res) {
  int64_t all = 0, limit = 500;
  if (!IntParam(req, res, "all", 0, 1, &all) || !IntParam(req, res, "limit", 1, 100000, &limit)) return;
  ReplyStore(res, store_.diagnoses.Diagnoses(all == 1, static_cast<int>(limit)), "diagnoses", options_.log);
}

void ApiServer::GetCoverage(const httplib::Request&, httplib::Response& res) {
  // The last diagnosis pass's coverage (read model; no SQL). Before the first pass: 503.
  const auto coverage = store_.read.snapshot().Take().coverage;
  if (!coverage || coverage->is_null())
    return SendError(res, 503, "no diagnosis pass yet", "the coverage is computed by each diagnosis pass");
  res.set_content(coverage->dump(), "application/json");
}

}  // namespace rdmascope::collector
