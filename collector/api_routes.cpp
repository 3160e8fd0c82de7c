// Route table and server-wide handlers of the API.
#include <exception>

#include "collector/api_server.h"

namespace rdmascope::collector {

namespace {

constexpr char kIndexPage[] =
    "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>rdmascope collector</title></head>\n"
    "<body><h1>rdmascope collector</h1>\n<ul>\n"
    "<li><a href=\"/api/v1/nodes\">/api/v1/nodes</a> &mdash; nodes and their last report</li>\n"
    "<li><a href=\"/api/v1/events?open=1\">/api/v1/events?open=1</a> &mdash; open events</li>\n"
    "<li><a href=\"/metrics\">/metrics</a> &mdash; Prometheus metrics</li>\n"
    "<li><a href=\"/healthz\">/healthz</a> &mdash; collector health</li>\n"
    "</ul>\n<p>Start with <code>--web-dir DIR</code> to serve the dashboard here.</p></body></html>\n";

}  // namespace

void ApiServer::Routes() {
  httplib::Server& s = *server_;
  s.set_payload_max_length(options_.max_body_bytes);
  s.set_tcp_nodelay(true);  // responses are written in pieces; do not wait for delayed ACKs
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
    SendError(res, 500, "internal error", what);
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
  s.Get("/api/v1/events", [this](R q, W w) { GetEvents(q, w); });
  s.Get("/api/v1/pinglist", [this](R q, W w) { GetPinglist(q, w); });
  s.Get("/api/v1/matrix", [this](R q, W w) { GetMatrix(q, w); });
  s.Get("/api/v1/fabric/nodes", [this](R q, W w) { GetFabricNodes(q, w); });
  s.Get("/api/v1/fabric/links", [this](R q, W w) { GetFabricLinks(q, w); });
  s.Get("/api/v1/fabric/errors", [this](R q, W w) { GetFabricErrors(q, w); });
  s.Get("/api/v1/fabric/neighbours", [this](R q, W w) { GetFabricNeighbours(q, w); });
  s.Get("/healthz", [this](R q, W w) { GetHealth(q, w); });
  s.Get("/metrics", [this](R q, W w) { GetMetrics(q, w); });
  if (!options_.web_dir.empty()) {
    // Text types carry a charset, which also keeps the HTTP library from
    // compressing them (its brotli is slower than sending the files as is).
    s.set_file_extension_and_mimetype_mapping("html", "text/html; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("js", "text/javascript; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("mjs", "text/javascript; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("css", "text/css; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("json", "application/json; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("svg", "image/svg+xml; charset=utf-8");
    s.set_mount_point("/", options_.web_dir);
  } else {
    s.Get("/", [](R, W w) { w.set_content(kIndexPage, "text/html; charset=utf-8"); });
  }
}

}  // namespace rdmascope::collector
