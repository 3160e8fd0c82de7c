// rdmactl status: the fabric as the collector sees it, with monitoring-plugin exit codes.
#include <cstdio>
#include <ctime>

#include "cli/commands.h"
#include "cli/status_client.h"
#include "cli/status_eval.h"

namespace rdmascope::cli {
namespace {

using nlohmann::json;

constexpr char kHelp[] =
    "usage: rdmactl [--json] status [--collector URL] [--ca-file FILE] [--token-file FILE] [--worst N] [--json]\n"
    "\n"
    "Asks a collector for its nodes, ports, worst probe pairs and open events.\n"
    "  --collector URL  the collector (default http://127.0.0.1:9470)\n"
    "  --worst N        worst pairs to show (default 5)\n"
    "%s"
    "  exit 0  OK: every node reporting, every port ACTIVE, no open events\n"
    "  exit 1  WARNING: a stale node, a counter over its threshold, or no node known\n"
    "  exit 2  CRITICAL: a port not ACTIVE, a path with open work-completion errors,\n"
    "          the collector unreachable (or a bad argument)\n";

std::string S(const json& obj, const char* key, const char* absent = "n/a") {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return absent;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", it->get<double>());
    return buf;
  }
  return it->dump();
}

void PrintText(const std::string& url, const CollectorView& v, const StatusVerdict& verdict) {
  std::printf("RDMA %s - collector %s: %zu node(s), %d stale, %d port(s) not ACTIVE, %zu open event(s)\n",
              SeverityName(verdict.severity), url.c_str(), v.nodes.size(), verdict.stale_nodes, verdict.bad_ports,
              v.open_events.size());
  for (const StatusFinding& f : verdict.findings) std::printf("  %s: %s\n", SeverityName(f.severity), f.what.c_str());
  std::printf("\nnodes:\n");
  for (const json& n : v.nodes)
    std::printf("  %-24s last report %8s s ago%s  ports %s (%s not active)  open events %s\n", S(n, "name").c_str(),
                S(n, "age_s").c_str(), n.value("stale", false) ? " STALE" : "", S(n, "port_count").c_str(),
                S(n, "ports_not_active").c_str(), S(n, "open_event_count").c_str());
  std::printf("\nworst pairs:\n");
  if (v.worst_pairs.empty()) std::printf("  (no probe results in the collector's window)\n");
  for (const json& p : v.worst_pairs) {
    char loss[32] = "n/a";
    if (p.value("loss_ratio", json()).is_number())
      std::snprintf(loss, sizeof loss, "%.2f%%", 100.0 * p["loss_ratio"].get<double>());
    std::printf("  %s -> %s %s  p50 %s us  p99 %s us  loss %s  errors %s\n", S(p, "src").c_str(), S(p, "dst").c_str(),
                S(p, "transport").c_str(), S(p, "rtt_p50_us").c_str(), S(p, "rtt_p99_us").c_str(), loss,
                S(p, "error_count").c_str());
  }
  std::printf("\nopen events:\n");
  if (v.open_events.empty()) std::printf("  (none)\n");
  for (const json& e : v.open_events) {
    std::string subject = S(e, "node");
    if (S(e, "peer", "").size()) subject += " -> " + S(e, "peer") + " " + S(e, "transport", "");
    if (S(e, "device", "").size()) subject += " " + S(e, "device") + "/" + S(e, "port");
    std::printf("  %-17s %s  %s since %s: %s\n", S(e, "kind").c_str(), subject.c_str(), S(e, "status").c_str(),
                IsoTime(e.value("started_at_ms", json())).c_str(), S(e, "detail").c_str());
  }
}

}  // namespace

int RunStatus(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::printf(kHelp, kCollectorAccessHelp);
    return 0;
  }
  std::string url = "http://127.0.0.1:9470";
  bool as_json = g.json;
  int worst = 5;
  CollectorAccess access;
  for (size_t i = 0; i < args.size(); ++i) {
    auto took = ParseCollectorAccessArg(args, &i, &access);
    if (!took.ok()) {
      std::fprintf(stderr, "rdmactl status: %s\n", took.status().message().c_str());
      return 2;
    }
    if (took.value()) continue;
    if (TakeCollectorArg(args, &i, &url)) {
    } else if (args[i] == "--json") {
      as_json = true;
    } else if (args[i] == "--worst" && i + 1 < args.size()) {
      const std::string& n = args[++i];
      if (n.empty() || n.size() > 3 || n.find_first_not_of("0123456789") != std::string::npos || std::stoi(n) < 1) {
        std::fprintf(stderr, "rdmactl status: --worst expects a number from 1 to 999\n");
        return 2;
      }
      worst = std::stoi(n);
    } else {
      std::fprintf(stderr, "rdmactl status: unexpected argument %s (see rdmactl status --help)\n", args[i].c_str());
      return 2;
    }
  }
  while (!url.empty() && url.back() == '/') url.pop_back();
  auto view = FetchCollectorView(url, worst, access);
  if (!view.ok()) return PrintCollectorFailure(url, view.status().message(), as_json);
  StatusVerdict verdict = EvaluateStatus(view.value());
  if (as_json) {
    json findings = json::array();
    for (const StatusFinding& f : verdict.findings)
      findings.push_back({{"severity", SeverityName(f.severity)}, {"what", f.what}});
    json bad_ports = json::array();
    for (const json& p : view.value().ports)
      if (!(p.value("state", json()).is_number() && p["state"].get<int>() == 4)) bad_ports.push_back(p);
    json out = {{"status", SeverityName(verdict.severity)},
                {"exit_code", static_cast<int>(verdict.severity)},
                {"collector", url},
                {"findings", findings},
                {"nodes", view.value().nodes},
                {"bad_ports", bad_ports},
                {"worst_pairs", view.value().worst_pairs},
                {"open_events", view.value().open_events}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    PrintText(url, view.value(), verdict);
  }
  return static_cast<int>(verdict.severity);
}

}  // namespace rdmascope::cli
