// rdmactl diagnose: the collector's diagnoses (GET /api/v1/diagnoses), with
// monitoring-plugin exit codes.
#include <algorithm>
#include <cstdio>

#include "cli/commands.h"
#include "cli/status_client.h"

namespace rdmascope::cli {
namespace {

using nlohmann::json;

constexpr char kHelp[] =
    "usage: rdmactl [--json] diagnose [--collector URL] [--ca-file FILE] [--token-file FILE] [--all] [--json]\n"
    "\n"
    "Prints where the collector locates faults and why. Every interval the collector\n"
    "votes over the newest probe results of all pairs: a bad path blames its source\n"
    "host and NIC, its destination host and NIC and, between groups (label group or\n"
    "leaf switch), the link between the two groups. An element whose paths are mostly\n"
    "bad is the verdict: a host must be bad as source and as destination, toward peers\n"
    "in more than one group. Work-completion statuses name the kind: rnr (the node's\n"
    "application posts no receives), access (a configuration fault at the responder),\n"
    "unreachable, loss, latency; a port not ACTIVE is port_down.\n"
    "\n"
    "Each diagnosis: severity, scope (host, nic, port, group_link, unknown), subject,\n"
    "kind, since when, confidence, the evidence (the path vote and the error counters\n"
    "that moved on that element, incl. the switch port at the other end of its\n"
    "cable) and the paths behind it (see them with /api/v1/probes?src=&dst=).\n"
    "An element has one diagnosis: a more severe verdict on it escalates that\n"
    "diagnosis in place (its evidence says what it was before), a milder one\n"
    "leaves it as it is, and a fault that comes back soon after it closed\n"
    "reopens it (flaps counted).\n"
    "\n"
    "  --collector URL  the collector (default http://127.0.0.1:9470)\n"
    "%s"
    "  --all            closed diagnoses too (after the open ones)\n"
    "  --json           the diagnoses as JSON\n"
    "  exit 0  no diagnosis open\n"
    "  exit 1  WARNING: open diagnoses, none critical (loss under 10 %%, latency)\n"
    "  exit 2  CRITICAL: an open critical diagnosis (unreachable, port_down, rnr,\n"
    "          access, loss of 10 %% or more), the collector unreachable, or a bad argument\n";

std::string Str(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// One line per evidence item.
std::string Evidence(const json& e) {
  const std::string what = e.value("what", "");
  if (what == "counter")
    return "counter " + Str(e["node"]) + " " + Str(e["device"]) + "/" + Str(e["port"]) + " " + Str(e["counter"]) +
           " +" + Str(e["delta"]);
  if (what == "switch_port")
    return "switch port " + Str(e["switch"]) + " port " + Str(e["port"]) + " (cabled to " + Str(e["cabled_to"]) +
           ") " + Str(e["counter"]) + " +" + Str(e["delta"]);
  if (what == "port_state") return "port state " + Str(e["state"]);
  if (what == "agent_silent") return "agent silent since " + IsoTime(e["last_report_at_ms"]);
  if (what == "flapping") return "flapping: came back " + Str(e["flaps"]) + " time(s) after a clean interval";
  if (what == "escalated")
    return "escalated from " + Str(e["from_severity"]) + " " + Str(e["from_kind"]) + " at " + IsoTime(e["at_ms"]);
  if (what == "paths") {
    std::string s = Str(e["bad"]) + " bad path(s)";
    if (e.contains("as_src")) s += ", as source " + Str(e["as_src"]);
    if (e.contains("as_dst")) s += ", as destination " + Str(e["as_dst"]);
    if (e.contains("across")) s += ", across the link " + Str(e["across"]);
    if (e.contains("voted_on"))
      s += ", decided on its " + Str(e["voted_on"]) + " paths (the other transport hides or lacks the fault)";
    if (e.contains("peer_groups")) {
      std::string groups;
      for (const json& g : e["peer_groups"]) groups += (groups.empty() ? "" : ", ") + Str(g);
      s += ", peers in group(s) " + groups;
    }
    if (e.contains("wc_status"))
      for (const auto& [k, v] : e["wc_status"].items()) s += ", " + k + " x" + Str(v);
    if (e.contains("median_loss_ratio")) {
      char buf[64];
      std::snprintf(buf, sizeof buf, ", median loss %.1f %%", 100.0 * e.value("median_loss_ratio", 0.0));
      s += buf;
    }
    if (e.contains("median_p50_us") && e.contains("latency_limit_us")) {
      char buf[96];
      std::snprintf(buf, sizeof buf, ", median p50 %.0f us (limit %.0f us)", e.value("median_p50_us", 0.0),
                    e.value("latency_limit_us", 0.0));
      s += buf;
    }
    if (e.contains("median_min_us") && e.contains("min_limit_us") &&
        e.value("median_min_us", 0.0) >= e.value("min_limit_us", 0.0)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, ", median min RTT %.0f us (limit %.0f us)", e.value("median_min_us", 0.0),
                    e.value("min_limit_us", 0.0));
      s += buf;
    }
    return s;
  }
  json rest = e;
  rest.erase("what");
  return what + " " + rest.dump();
}

int Severity(const json& list) {
  int sev = 0;
  for (const json& d : list)
    if (d.value("open", false)) sev = std::max(sev, d.value("severity", "") == "critical" ? 2 : 1);
  return sev;
}

void PrintText(const std::string& url, const json& list, int sev) {
  static const char* kNames[] = {"OK", "WARNING", "CRITICAL"};
  size_t open = 0;
  for (const json& d : list) open += d.value("open", false) ? 1 : 0;
  std::printf("RDMA %s - collector %s: %zu open diagnosis(es)\n", kNames[sev], url.c_str(), open);
  for (const json& d : list) {
    std::printf("\n%s %s %s %s: %s since %s, confidence %.2f%s\n", d.value("open", false) ? "OPEN  " : "CLOSED",
                d.value("severity", "").c_str(), d.value("scope", "").c_str(), d.value("subject", "").c_str(),
                d.value("kind", "").c_str(), IsoTime(d["since_ms"]).c_str(), d.value("confidence", 0.0),
                d.value("open", false) ? "" : (", closed " + IsoTime(d["closed_at_ms"])).c_str());
    for (const json& e : d.value("evidence", json::array())) std::printf("    evidence: %s\n", Evidence(e).c_str());
    std::string paths;
    for (const json& p : d.value("paths", json::array()))
      paths += (paths.empty() ? "" : ", ") + Str(p["src"]) + "->" + Str(p["dst"]) + " " + Str(p["transport"]);
    if (!paths.empty()) std::printf("    paths: %s\n", paths.c_str());
  }
}

}  // namespace

int RunDiagnose(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::printf(kHelp, kCollectorAccessHelp);
    return 0;
  }
  std::string url = "http://127.0.0.1:9470";
  bool as_json = g.json, all = false;
  CollectorAccess access;
  for (size_t i = 0; i < args.size(); ++i) {
    auto took = ParseCollectorAccessArg(args, &i, &access);
    if (!took.ok()) {
      std::fprintf(stderr, "rdmactl diagnose: %s\n", took.status().message().c_str());
      return 2;
    }
    if (took.value()) continue;
    if (TakeCollectorArg(args, &i, &url)) {
    } else if (args[i] == "--json") {
      as_json = true;
    } else if (args[i] == "--all") {
      all = true;
    } else {
      std::fprintf(stderr, "rdmactl diagnose: unexpected argument %s (see rdmactl diagnose --help)\n",
                   args[i].c_str());
      return 2;
    }
  }
  while (!url.empty() && url.back() == '/') url.pop_back();
  auto list = FetchCollectorList(url, all ? "/api/v1/diagnoses?all=1" : "/api/v1/diagnoses", "diagnoses", access);
  if (!list.ok()) return PrintCollectorFailure(url, list.status().message(), as_json);
  const int sev = Severity(list.value());
  if (as_json) {
    static const char* kNames[] = {"OK", "WARNING", "CRITICAL"};
    std::printf("%s\n", json{{"status", kNames[sev]}, {"exit_code", sev}, {"collector", url},
                             {"diagnoses", list.value()}}
                            .dump(2)
                            .c_str());
  } else {
    PrintText(url, list.value(), sev);
  }
  return sev;
}

}  // namespace rdmascope::cli
