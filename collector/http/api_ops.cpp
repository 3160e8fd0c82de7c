// /healthz and /metrics.
//
// /healthz is open to anyone (no read token): it says ok or not ok and the
// class of the problem, never a path or the database's own error text (the
// log has those). 200 {"ok":true}; 503 {"ok":false,"error":"database
// unavailable"|"storage problem","detail":...} where a storage problem's
// detail starts with its class ("storage full", "storage damaged", "storage
// I/O error"). The service watchdog reads "storage problem" (collector_main.cpp).
#include "collector/http/api_params.h"
#include "collector/http/api_server.h"
#include "collector/http/http_body.h"
#include "collector/metrics/metrics_hygiene.h"
#include "collector/metrics/metrics_render.h"

namespace rdmascope::collector {

namespace {

void NotOk(httplib::Response& res, const std::string& error, const std::string& detail) {
  SendJson(res, {{"ok", false}, {"error", error}, {"detail", detail}});
  res.status = 503;
}

}  // namespace

void ApiServer::GetHealth(const httplib::Request&, httplib::Response& res) {
  // A read on a read-only connection: the answer does not wait for the writer.
  Status s = store_.db.Ping();
  if (!s.ok()) {
    options_.log("health check: the database does not answer: " + s.message());
    return NotOk(res, "database unavailable", "the collector cannot read its database; its log has the cause");
  }
  const StorageFault fault = storage_health_.fault();
  if (fault != StorageFault::kNone)
    return NotOk(res, "storage problem", std::string(StorageFaultClass(fault)) + ": " + StorageFaultAdvice(fault, ""));
  SendJson(res, {{"ok", true}});
}

void ApiServer::GetMetrics(const httplib::Request& req, httplib::Response& res) {
  auto snap = store_.read.MetricsSnapshotParts(Now() - options_.metrics_probe_window_ms, options_.metrics_worst_pairs);
  if (!snap.ok()) return SendStoreFailure(res, snap.status(), "the metrics", options_.log);
  ReadModel::MetricsParts& parts = snap.value();
  const std::set<std::string> dropped =
      ApplyNodeStaleness(parts.rows, Now(), options_.stale_after_ms, options_.metrics_drop_after_ms);
  std::vector<const PortFamilies*> port_text;
  for (const auto& node : parts.nodes)
    if (!dropped.count(node->name)) port_text.push_back(&node->port_text);
  // Anyone may scrape: gzip at level 1 or nothing, never the library's brotli (http_body.h).
  SetGzipOrPlain(req, res, RenderMetrics(parts.rows, port_text, metrics_, store_.db.SizeBytes()),
                 "text/plain; version=0.0.4");
}

}  // namespace rdmascope::collector
