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
  auto snap = store_.MetricsSnapshot(Now() - options_.metrics_probe_window_ms, options_.metrics_worst_pairs);
  if (!snap.ok()) return SendError(res, 500, "store query failed", snap.status().message());
  ApplyNodeStaleness(snap.value(), Now(), options_.stale_after_ms, options_.metrics_drop_after_ms);
  res.set_content(RenderMetrics(snap.value(), metrics_, store_.SizeBytes()), "text/plain; version=0.0.4");
}

}  // namespace rdmascope::collector
