// GET /api/v1/fabric/nodes, /links, /errors, /neighbours: the InfiniBand
// fabric as sweeps and agents' neighbour lookups reported it (shapes in
// collector/README.md). Each takes limit (1 to HistoryQueries::kListLimit, the default);
// /neighbours also node (one node's).
#include "collector/http/api_params.h"
#include "collector/http/api_server.h"

namespace rdmascope::collector {
namespace {

constexpr int64_t kDayMs = 86400LL * 1000;

bool Limit(const httplib::Request& req, httplib::Response& res, int* out) {
  int64_t limit = HistoryQueries::kListLimit;
  if (!IntParam(req, res, "limit", 1, HistoryQueries::kListLimit, &limit)) return false;
  *out = static_cast<int>(limit);
  return true;
}

}  // namespace

void ApiServer::GetFabricNodes(const httplib::Request& req, httplib::Response& res) {
  int limit = 0;
  if (Limit(req, res, &limit)) ReplyStore(res, store_.history.FabricNodes(limit), "the fabric's nodes", options_.log);
}

void ApiServer::GetFabricLinks(const httplib::Request& req, httplib::Response& res) {
  int limit = 0;
  if (Limit(req, res, &limit))
    ReplyStore(res, store_.history.FabricLinks(Now() - kDayMs, limit), "the fabric's links", options_.log);
}

void ApiServer::GetFabricNeighbours(const httplib::Request& req, httplib::Response& res) {
  int limit = 0;
  std::optional<std::string> node;  // one node's ports only (the Nodes & ports page asks per page)
  if (!Limit(req, res, &limit) || !NameParam(req, res, "node", &node)) return;
  auto r = store_.history.NodeNeighbours(node, limit);
  if (!r.ok()) return SendStoreFailure(res, r.status(), "the nodes' neighbours", options_.log);
  SendJson(res, nlohmann::json{{"neighbours", std::move(r).value()}});
}

void ApiServer::GetFabricErrors(const httplib::Request& req, httplib::Response& res) {
  int limit = 0;
  if (Limit(req, res, &limit)) ReplyStore(res, store_.history.FabricErrors(limit), "the fabric's errors", options_.log);
}

}  // namespace rdmascope::collector
