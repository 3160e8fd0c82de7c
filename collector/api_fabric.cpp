// GET /api/v1/fabric/nodes, /links, /errors: the InfiniBand fabric as sweeps
// and agents' neighbour lookups reported it (shapes in collector/README.md).
#include "collector/api_server.h"

namespace rdmascope::collector {
namespace {

constexpr int64_t kDayMs = 86400LL * 1000;

void ReplyOrError(httplib::Response& res, const Result<nlohmann::json>& r) {
  if (r.ok())
    SendJson(res, r.value());
  else
    SendError(res, 500, "store query failed", r.status().message());
}

}  // namespace

void ApiServer::GetFabricNodes(const httplib::Request&, httplib::Response& res) { ReplyOrError(res, store_.FabricNodes()); }

void ApiServer::GetFabricLinks(const httplib::Request&, httplib::Response& res) {
  ReplyOrError(res, store_.FabricLinks(Now() - kDayMs));
}

void ApiServer::GetFabricNeighbours(const httplib::Request&, httplib::Response& res) {
  auto r = store_.NodeNeighbours(std::nullopt);
  if (!r.ok()) return SendError(res, 500, "store query failed", r.status().message());
  SendJson(res, nlohmann::json{{"neighbours", std::move(r).value()}});
}

void ApiServer::GetFabricErrors(const httplib::Request&, httplib::Response& res) {
  ReplyOrError(res, store_.FabricErrors());
}

}  // namespace rdmascope::collector
