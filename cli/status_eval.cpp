#include "cli/status_eval.h"

namespace rdmascope::cli {
namespace {

using nlohmann::json;

std::string S(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

void Add(StatusVerdict* v, Severity s, std::string what) {
  if (static_cast<int>(s) > static_cast<int>(v->severity)) v->severity = s;
  v->findings.push_back({s, std::move(what)});
}

}  // namespace

StatusVerdict EvaluateStatus(const CollectorView& view) {
  StatusVerdict v;
  if (view.nodes.empty()) Add(&v, Severity::kWarning, "no node has reported to the collector yet");
  for (const json& n : view.nodes) {
    if (n.value("stale", false)) {
      ++v.stale_nodes;
      Add(&v, Severity::kWarning, "node " + S(n, "name") + " is stale: last report " + S(n, "age_s") + " s ago");
    }
  }
  for (const json& p : view.ports) {
    const json state = p.value("state", json());
    if (state.is_number() && state.get<int>() == 4) continue;
    ++v.bad_ports;
    std::string name = state.is_null() ? "unknown" : S(p, "state_name");
    Add(&v, Severity::kCritical, "port " + S(p, "node") + " " + S(p, "device") + "/" + S(p, "port") + " state " +
                                     name + " (phys " + (S(p, "phys_state_name").empty() ? "unknown" : S(p, "phys_state_name")) + ")");
  }
  for (const json& e : view.open_events) {
    std::string kind = S(e, "kind");
    if (kind == "wc_error")
      Add(&v, Severity::kCritical, "work-completion errors " + S(e, "node") + " -> " + S(e, "peer") + " over " +
                                       S(e, "transport") + ": " + S(e, "status") + " (" + S(e, "count") +
                                       " so far); see `rdmactl explain " + S(e, "status") + "`");
    else if (kind == "counter_threshold")
      Add(&v, Severity::kWarning, "counter " + S(e, "node") + " " + S(e, "device") + "/" + S(e, "port") + ": " +
                                      S(e, "detail"));
  }
  return v;
}

}  // namespace rdmascope::cli
