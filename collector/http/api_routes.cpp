// Route table and server-wide handlers of the API.
#include <exception>

#include "collector/http/api_server.h"

namespace rdmascope::collector {

void ApiServer::Routes() {
  httplib::Server& s = *server_;
  s.set_payload_max_length(options_.max_body_bytes);
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) { return PreRoute(req, res); });
  s.set_exception_handler([this](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    options_.log("internal error on " + req.method + " " + req.path + ": " + what);
    SendError(res, 500, "internal error", "the collector failed to answer; its log has the cause");
  });
  s.set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 413 && req.path == "/api/v1/reports" && res.body.empty()) {
      metrics_.Count(ReportOutcome::kTooLarge);
      options_.log("report rejected: body over the " + std::to_string(options_.max_body_bytes) + "-byte cap from " +
                   req.remote_addr);
      SendError(res, 413, "report too large", {{"max_body_bytes", options_.max_body_bytes}});
    } else if (res.body.empty()) {
      SendError(res, res.status, res.status == 404 ? "not found" : "request failed", req.path);
    }
    return httplib::Server::HandlerResponse::Handled;
  }));

  using R = const httplib::Request&;
  using W = httplib::Response&;
  s.Post("/api/v1/reports", [this](R q, W w) { PostReport(q, w); });
  s.Get("/api/v1/nodes", [this](R q, W w) { GetNodes(q, w); });
  s.Get(R"(/api/v1/nodes/([A-Za-z0-9._-]{1,128}))", [this](R q, W w) { GetNode(q, w); });
  s.Get("/api/v1/ports", [this](R q, W w) { GetPorts(q, w); });
  s.Get("/api/v1/counters", [this](R q, W w) { GetCounters(q, w); });
  s.Get("/api/v1/probes", [this](R q, W w) { GetProbes(q, w); });
  s.Get("/api/v1/probes/worst", [this](R q, W w) { GetWorstPairs(q, w); });
  s.Get("/api/v1/probes/rollup", [this](R q, W w) { GetProbeRollups(q, w); });
  s.Get("/api/v1/events", [this](R q, W w) { GetEvents(q, w); });
  s.Get("/api/v1/pinglist", [this](R q, W w) { GetPinglist(q, w); });
  s.Get("/api/v1/diagnoses", [this](R q, W w) { GetDiagnoses(q, w); });
  s.Get("/api/v1/matrix", [this](R q, W w) { GetMatrix(q, w); });
  s.Get("/api/v1/fabric/nodes", [this](R q, W w) { GetFabricNodes(q, w); });
  s.Get("/api/v1/fabric/links", [this](R q, W w) { GetFabricLinks(q, w); });
  s.Get("/api/v1/fabric/errors", [this](R q, W w) { GetFabricErrors(q, w); });
  s.Get("/api/v1/fabric/neighbours", [this](R q, W w) { GetFabricNeighbours(q, w); });
  s.Get("/api/v1/fabric/path", [this](R q, W w) { GetFabricPath(q, w); });
  s.Get("/healthz", [this](R q, W w) { GetHealth(q, w); });
  s.Get("/metrics", [this](R q, W w) { GetMetrics(q, w); });
  WebRoutes();  // api_web.cpp
}

}  // namespace rdmascope::collector
