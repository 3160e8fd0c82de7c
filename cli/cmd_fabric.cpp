// rdmactl fabric discover|counters|errors|port|path: the InfiniBand subnet over
// MADs from one local port.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "agent/node/health.h"
#include "cli/commands.h"
#include "cli/fabric_endpoint.h"
#include "cli/fabric_routes_output.h"
#include "common/ib_encoding.h"
#include "fabric/fabric_errors.h"
#include "fabric/fabric_json.h"
#include "fabric/port_query.h"
#include "fabric/routes.h"
#include "fabric/sweep.h"
#include "fabric/umad_transport.h"

namespace rdmascope::cli {
namespace {

using namespace rdmascope::fabric;

constexpr char kHelp[] =
    "usage: rdmactl [--json] fabric SUBCOMMAND [--ca DEV] [--port N] [--timeout-ms MS] [--retries N]\n"
    "                                    [--window N] [--node-window N] [--threshold COUNTER=N]...\n"
    "                                    [--routes]\n"
    "\n"
    "The InfiniBand subnet seen over MADs (directed-route SMPs, PMA) from one local port.\n"
    "subcommands:\n"
    "  discover          nodes and links (NodeInfo, NodeDescription, SwitchInfo, PortInfo)\n"
    "  counters          discover plus every port's PortCounters / PortCountersExtended\n"
    "  errors            ports with an error counter at or above its threshold, and links whose\n"
    "                    width or speed runs below what both ends support (link_degraded);\n"
    "                    exit 0 none, 1 some (or a node did not answer), 2 a port with its cable\n"
    "                    up but not ACTIVE, or the sweep could not run\n"
    "  port LID|GUID N   one port: its PortInfo and counters\n"
    "  path SRC DST      the route from SRC to DST through the switches' forwarding tables:\n"
    "                    each switch crossed with the ports it enters and leaves by; exit 2\n"
    "                    when there is none (the error names the switch). SRC and DST: a LID\n"
    "                    (decimal), a GUID (0x...: a node GUID, a CA by its first ACTIVE port,\n"
    "                    or a port GUID), or a node description (exact; an ambiguous one is an\n"
    "                    error listing the GUIDs)\n"
    "options:\n"
    "  --ca DEV          local device (default: the first)\n"
    "  --port N          local port (default: the first active)\n"
    "  --timeout-ms MS   per MAD attempt (default 100)\n"
    "  --retries N       extra attempts per MAD (default 2)\n"
    "  --window N        SMPs in flight at most, and as many PMA queries apart (default 64)\n"
    "  --node-window N   MADs in flight at most toward one node or LID (default 4); halved\n"
    "                    when one gets no answer, widened again by its answers. Directed-\n"
    "                    route SMPs travel on VL15, which has no flow control: a deep window\n"
    "                    aimed at one switch risks drops that look like silent nodes\n"
    "  --threshold C=N   errors: set or override one threshold (counter names as `rdmactl health`)\n"
    "  --routes          discover, counters: read every switch's LinearForwardingTable too\n"
    "                    (SwitchInfo, then one SMP per 64 LIDs); --json adds \"lft\" (egress port\n"
    "                    by LID, 255 none) to each switch, the text lists each table\n"
    "A node that does not answer is listed under \"unreachable\"; the sweep goes on.\n"
    "--json prints one line (discover, counters) or an indented object (errors, port).\n"
    "Needs access to /dev/infiniband/umad* (root).\n";

struct FabricArgs {
  std::string sub;
  std::vector<std::string> positional;
  std::string ca;
  int port = 0;
  EngineOptions engine;
  Thresholds thresholds = DefaultThresholds();
  bool routes = false;
};

bool ParseInt(const std::string& s, int lo, int hi, int* out) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseArgs(const std::vector<std::string>& args, FabricArgs* fa) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto need = [&](const char* what) -> const std::string* {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "rdmactl fabric: %s needs %s\n", a.c_str(), what);
        return nullptr;
      }
      return &args[++i];
    };
    const std::string* v = nullptr;
    if (a == "--ca") {
      if (!(v = need("a device name"))) return false;
      fa->ca = *v;
    } else if (a == "--port") {
      if (!(v = need("a port number")) || !ParseInt(*v, 1, 254, &fa->port)) return false;
    } else if (a == "--timeout-ms") {
      if (!(v = need("milliseconds")) || !ParseInt(*v, 1, 60000, &fa->engine.timeout_ms)) return false;
    } else if (a == "--retries") {
      if (!(v = need("a count")) || !ParseInt(*v, 0, 20, &fa->engine.retries)) return false;
    } else if (a == "--window") {
      if (!(v = need("a count")) || !ParseInt(*v, 1, 1024, &fa->engine.window)) return false;
    } else if (a == "--node-window") {
      if (!(v = need("a count")) || !ParseInt(*v, 1, 64, &fa->engine.per_target)) return false;
    } else if (a == "--threshold") {
      if (!(v = need("COUNTER=N"))) return false;
      Status s = ParseThresholdOverride(*v, &fa->thresholds);
      if (!s.ok()) {
        std::fprintf(stderr, "rdmactl fabric: %s\n", s.message().c_str());
        return false;
      }
    } else if (a == "--routes") {
      fa->routes = true;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "rdmactl fabric: unknown option %s (see rdmactl fabric --help)\n", a.c_str());
      return false;
    } else if (fa->sub.empty()) {
      fa->sub = a;
    } else {
      fa->positional.push_back(a);
    }
  }
  return true;
}

const FabricNode* FindNode(const Fabric& f, uint64_t guid) {
  for (const FabricNode& n : f.nodes)
    if (n.guid == guid) return &n;
  return nullptr;
}

std::string NodeName(const Fabric& f, const RemoteEnd& r) {
  const FabricNode* n = FindNode(f, r.guid);
  return GuidText(r.guid) + "[" + std::to_string(r.port) + "]" + (n ? " \"" + n->description + "\"" : "");
}

void PrintUnreachable(const Fabric& f) {
  for (const Unreachable& u : f.unreachable) {
    std::printf("UNREACHABLE DR %s", u.path.c_str());
    if (u.guid) std::printf(" %s", GuidText(*u.guid).c_str());
    if (u.description) std::printf(" \"%s\"", u.description->c_str());
    if (u.lid) std::printf(" lid %u", *u.lid);
    if (u.via) std::printf(" behind %s", NodeName(f, *u.via).c_str());
    std::printf(": %s\n", u.what.c_str());
  }
}

void PrintTopology(const Fabric& f, bool with_counters) {
  for (const FabricNode& n : f.nodes) {
    std::printf("%s %s \"%s\" lid %u ports %d\n", NodeTypeName(n.type), GuidText(n.guid).c_str(),
                n.description.c_str(), n.lid, n.num_ports);
    for (const FabricPort& p : n.ports) {
      if (p.remote == std::nullopt && p.phys_state != 5 && !with_counters) continue;
      std::printf("  [%d] %s/%s %s %s", p.number, PortStateName(p.state), PhysStateName(p.phys_state),
                  ib::WidthText(p.width_active).c_str(), ib::SpeedText(p.speed_active, p.speed_ext_active).c_str());
      if (p.remote) std::printf(" -> %s", NodeName(f, *p.remote).c_str());
      std::printf("\n");
      if (with_counters) {
        std::string line;
        for (const auto& [k, v] : p.counters)
          if (v.value != 0) line += " " + k + "=" + std::to_string(v.value) + (v.saturated ? "(saturated)" : "");
        if (p.counters_error) line += " error: " + *p.counters_error;
        if (!line.empty()) std::printf("     %s\n", line.c_str());
      }
    }
  }
  PrintUnreachable(f);
  std::printf("%zu nodes, %zu unreachable, sweep %lld ms, %llu MADs (%llu timed out, %llu back-offs; at most %d in "
              "flight, %d toward one node)\n",
              f.nodes.size(), f.unreachable.size(), static_cast<long long>(f.sweep_ms),
              static_cast<unsigned long long>(f.stats.mads_sent),
              static_cast<unsigned long long>(f.stats.mads_timed_out),
              static_cast<unsigned long long>(f.stats.backoffs), f.stats.max_in_flight,
              f.stats.max_in_flight_per_target);
}

int Errors(const GlobalOptions& g, const Fabric& f, const FabricArgs& fa) {
  FabricErrors e = EvaluateFabricErrors(f, fa.thresholds);
  const char* status = e.severity == 0 ? "OK" : e.severity == 1 ? "WARNING" : "CRITICAL";
  if (g.json) {
    nlohmann::json findings = nlohmann::json::array();
    for (const PortFinding& pf : e.findings) {
      nlohmann::json j = {{"guid", GuidText(pf.guid)}, {"description", pf.description}, {"port", pf.port},
                          {"lid", pf.lid},             {"counter", pf.counter},         {"value", pf.value},
                          {"saturated", pf.saturated}, {"threshold", pf.threshold},
                          {"severity", pf.severity == 2 ? "CRITICAL" : "WARNING"}};
      if (!pf.detail.empty()) j["detail"] = pf.detail;
      j["remote"] = pf.remote ? nlohmann::json{{"guid", GuidText(pf.remote->guid)}, {"port", pf.remote->port}}
                              : nlohmann::json(nullptr);
      findings.push_back(j);
    }
    nlohmann::json all = FabricToJson(f, false);
    nlohmann::json j = {{"status", status},         {"exit_code", e.severity},
                        {"ports_checked", e.ports_checked}, {"findings", findings},
                        {"unreachable", all["unreachable"]}, {"sweep_ms", f.sweep_ms}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("FABRIC %s - %zu nodes, %d port(s) checked, %zu finding(s), %zu unreachable\n", status,
                f.nodes.size(), e.ports_checked, e.findings.size(), f.unreachable.size());
    for (const PortFinding& pf : e.findings) {
      if (pf.severity == 2)
        std::printf("  CRITICAL: %s \"%s\" lid %u port %d: state %s with the cable up (LinkUp): is the SM running?",
                    GuidText(pf.guid).c_str(), pf.description.c_str(), pf.lid, pf.port,
                    PortStateName(static_cast<int>(pf.value)));
      else if (!pf.detail.empty())
        std::printf("  %s \"%s\" lid %u port %d: %s %s", GuidText(pf.guid).c_str(), pf.description.c_str(), pf.lid,
                    pf.port, pf.counter.c_str(), pf.detail.c_str());
      else
        std::printf("  %s \"%s\" lid %u port %d: %s %s%llu >= %llu", GuidText(pf.guid).c_str(),
                    pf.description.c_str(), pf.lid, pf.port, pf.counter.c_str(), pf.saturated ? ">=" : "",
                    static_cast<unsigned long long>(pf.value), static_cast<unsigned long long>(pf.threshold));
      if (pf.remote) std::printf(" (link to %s)", NodeName(f, *pf.remote).c_str());
      std::printf("\n");
    }
    PrintUnreachable(f);
  }
  return e.severity;
}

int Port(const GlobalOptions& g, MadTransport& t, const FabricArgs& fa) {
  if (fa.positional.size() != 2) {
    std::fprintf(stderr, "rdmactl fabric port: needs LID|GUID and PORT\n");
    return 2;
  }
  const std::string& who = fa.positional[0];
  int port = 0;
  if (!ParseInt(fa.positional[1], 0, 254, &port)) {
    std::fprintf(stderr, "rdmactl fabric port: bad port number %s\n", fa.positional[1].c_str());
    return 2;
  }
  bool by_guid = who.rfind("0x", 0) == 0 || who.size() > 5;
  uint64_t guid = 0;
  int lid = 0;
  if (by_guid ? !ParseGuid(who, &guid) : !ParseInt(who, 1, 0xbfff, &lid)) {
    std::fprintf(stderr, "rdmactl fabric port: %s is neither a LID nor a GUID\n", who.c_str());
    return 2;
  }
  SweepOptions so;
  so.engine = fa.engine;
  so.counters = false;
  Result<Fabric> f = SweepSubnet(t, so);
  if (!f.ok()) {
    std::fprintf(stderr, "rdmactl fabric port: %s\n", f.status().message().c_str());
    return 2;
  }
  const FabricNode* node = nullptr;
  const FabricPort* fp = nullptr;
  for (const FabricNode& n : f->nodes) {
    for (const FabricPort& p : n.ports) {
      bool match = by_guid ? n.guid == guid : (p.lid == static_cast<uint32_t>(lid) || n.lid == static_cast<uint32_t>(lid));
      if (match && p.number == port) {
        node = &n;
        fp = &p;
      }
    }
  }
  if (!fp) {
    std::fprintf(stderr, "rdmactl fabric port: no port %d on %s in the subnet (%zu nodes answered)\n", port,
                 who.c_str(), f->nodes.size());
    return 2;
  }
  FabricPort out = *fp;
  uint32_t pma_lid = fp->lid ? fp->lid : node->lid;
  Result<PortCounterMap> c = QueryPortCounters(t, fa.engine, pma_lid, port);
  if (c.ok()) out.counters = c.value();
  else out.counters_error = c.status().message();
  if (g.json) {
    nlohmann::json j = PortToJson(out, true);
    j["guid"] = GuidText(node->guid);
    j["type"] = NodeTypeName(node->type);
    j["description"] = node->description;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s %s \"%s\" port %d lid %u\n", NodeTypeName(node->type), GuidText(node->guid).c_str(),
                node->description.c_str(), port, out.lid);
    std::printf("  state %s phys %s width %s speed %s\n", PortStateName(out.state), PhysStateName(out.phys_state),
                ib::WidthText(out.width_active).c_str(), ib::SpeedText(out.speed_active, out.speed_ext_active).c_str());
    if (out.remote) std::printf("  remote %s\n", NodeName(f.value(), *out.remote).c_str());
    for (const auto& [k, v] : out.counters)
      std::printf("  %-34s %llu%s\n", k.c_str(), static_cast<unsigned long long>(v.value),
                  v.saturated ? " (saturated)" : "");
    if (out.counters_error) std::printf("  counters: %s\n", out.counters_error->c_str());
  }
  return c.ok() ? 0 : 2;
}

// The reasons a node did not give everything (a switch's table that failed names its block).
std::string Silences(const Fabric& f) {
  std::string out;
  for (const Unreachable& u : f.unreachable)
    out += "\n  " + (u.guid ? GuidText(*u.guid) : "DR " + u.path) + ": " + u.what;
  return out;
}

int Path(const GlobalOptions& g, MadTransport& t, const FabricArgs& fa) {
  if (fa.positional.size() != 2) {
    std::fprintf(stderr, "rdmactl fabric path: needs SRC and DST (a LID, a 0x GUID or a node description)\n");
    return 2;
  }
  SweepOptions so;
  so.engine = fa.engine;
  so.counters = false;
  so.routes = true;
  Result<Fabric> f = SweepSubnet(t, so);
  if (!f.ok()) {
    std::fprintf(stderr, "rdmactl fabric path: %s\n", f.status().message().c_str());
    return 2;
  }
  RouteTable routes(f.value());
  Endpoint ends[2];
  for (int i = 0; i < 2; ++i) {
    Result<Endpoint> e = ResolveEndpoint(f.value(), routes, fa.positional[i]);
    if (!e.ok()) {
      std::fprintf(stderr, "rdmactl fabric path: %s %s: %s\n", i ? "DST" : "SRC", fa.positional[i].c_str(),
                   e.status().message().c_str());
      return 2;
    }
    ends[i] = e.value();
  }
  Result<Route> r = routes.Trace(PortRef{ends[0].node->guid, ends[0].port}, ends[1].lid);
  if (!r.ok()) {
    std::string why = f->unreachable.empty() ? "" : "\nnodes that did not answer every MAD:" + Silences(f.value());
    std::fprintf(stderr, "rdmactl fabric path: no route from %s to %s: %s%s\n", fa.positional[0].c_str(),
                 fa.positional[1].c_str(), r.status().message().c_str(), why.c_str());
    return 2;
  }
  if (g.json) std::printf("%s\n", PathToJson(r.value(), ends[0], ends[1]).dump(2).c_str());
  else PrintPath(r.value(), ends[0], ends[1], routes);
  return 0;
}

}  // namespace

int RunFabric(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  FabricArgs fa;
  if (!ParseArgs(args, &fa)) return 2;
  if (fa.sub != "discover" && fa.sub != "counters" && fa.sub != "errors" && fa.sub != "port" && fa.sub != "path") {
    std::fprintf(stderr, "rdmactl fabric: %s\n\n%s",
                 fa.sub.empty() ? "needs a subcommand" : ("unknown subcommand " + fa.sub).c_str(), kHelp);
    return 2;
  }
  if (fa.sub != "port" && fa.sub != "path" && !fa.positional.empty()) {
    std::fprintf(stderr, "rdmactl fabric %s: unexpected argument %s\n", fa.sub.c_str(), fa.positional[0].c_str());
    return 2;
  }
  if (fa.routes && fa.sub != "discover" && fa.sub != "counters") {
    std::fprintf(stderr, "rdmactl fabric %s: --routes goes with discover or counters (path always reads them)\n",
                 fa.sub.c_str());
    return 2;
  }
  auto t = UmadTransport::Open(fa.ca, fa.port);
  if (!t.ok()) {
    std::fprintf(stderr, "rdmactl fabric: %s\n", t.status().message().c_str());
    return 2;
  }
  if (fa.sub == "port") return Port(g, *t.value(), fa);
  if (fa.sub == "path") return Path(g, *t.value(), fa);
  SweepOptions so;
  so.engine = fa.engine;
  so.counters = fa.sub != "discover";
  so.routes = fa.routes;
  Result<Fabric> f = SweepSubnet(*t.value(), so);
  if (!f.ok()) {
    std::fprintf(stderr, "rdmactl fabric %s: %s\n", fa.sub.c_str(), f.status().message().c_str());
    return 2;
  }
  if (fa.sub == "errors") return Errors(g, f.value(), fa);
  if (g.json) {
    // One line: a 600-node sweep with counters is megabytes.
    std::string text = FabricJsonText(f.value(), so.counters);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
  } else {
    PrintTopology(f.value(), so.counters);
    if (so.routes) {
      std::printf("\n");
      PrintForwardingTables(f.value(), RouteTable(f.value()));
    }
  }
  return 0;
}

}  // namespace rdmascope::cli
