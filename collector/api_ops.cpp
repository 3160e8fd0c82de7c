// /healthz and /metrics.
#include "collector/api_server.h"
#include "collector/metrics_hygiene.h"
#include "collector/metrics_render.h"

namespace rdmascope::collector {

void ApiServer::GetHealth(const httplib::Request&, httplib::Response& res) {
  Status s = store_.Ping();
  if (!s.ok()) return SendError(res, 503, "database unavailable", s.message());
  if (auto problem = storage_health_.Problem())
    return SendError(res, 503, "storage problem",
                     *problem + "; " + StorageFaultAdvice(storage_health_.fault(), store_.path()));
  SendJson(res, {{"ok", true}});
}

void ApiServer::GetMetrics(const httplib::Request&, httplib::Response& res) {
  auto snap = store_.MetricsSnapshotParts(Now() - options_.metrics_probe_window_ms, options_.metrics_worst_pairs);
  if (!snap.ok()) return SendError(res, 500, "store query failed", snap.status().message());
  Store::MetricsParts& parts = snap.value();
  const std::set<std::string> dropped =
      ApplyNodeStaleness(parts.rows, Now(), options_.stale_after_ms, options_.metrics_drop_after_ms);
  std::vector<const PortFamilies*> port_text;
  for (const auto& node : parts.nodes)
    if (!dropped.count(node->name)) port_text.push_back(&node->port_text);
  res.set_content(RenderMetrics(parts.rows, port_text, metrics_, store_.SizeBytes()), "text/plain; version=0.0.4");
}

}  // namespace rdmascope::collector
