#include "collector/probe_input.h"

#include "collector/json_get.h"
#include "collector/store.h"

namespace rdmascope::collector {

namespace {

using nlohmann::json;

struct Stats {
  std::optional<int64_t> count;
  std::optional<double> min, avg, p50, p90, p99, p999, max;
};

// One pass over a latency object; a count of 0 leaves every quantile absent.
Stats ReadStats(const json* o) {
  Stats s;
  if (!o || !o->is_object()) return s;
  for (const auto& [k, v] : o->items()) {
    if (k == "count") {
      if (v.is_number()) s.count = v.is_number_float() ? static_cast<int64_t>(v.get<double>()) : v.get<int64_t>();
      continue;
    }
    if (!v.is_number()) continue;
    const double d = v.get<double>();
    if (k == "min") s.min = d;
    else if (k == "avg") s.avg = d;
    else if (k == "p50") s.p50 = d;
    else if (k == "p90") s.p90 = d;
    else if (k == "p99") s.p99 = d;
    else if (k == "p999") s.p999 = d;
    else if (k == "max") s.max = d;
  }
  if (s.count && *s.count == 0) s = Stats{s.count, {}, {}, {}, {}, {}, {}, {}};
  return s;
}

ProbeInput Extract(const json& p) {
  ProbeInput in;
  in.target = p["target"].get<std::string>();
  in.transport = p["transport"].get<std::string>();
  in.interval_start = *OptInt(p, "interval_start_ms");
  in.interval_end = *OptInt(p, "interval_end_ms");
  if (const json* local = Field(p, "local")) {
    in.local_device = OptText(*local, "device");
    in.local_port = OptInt(*local, "port");
  }
  if (const json* remote = Field(p, "remote")) {
    in.remote_host = OptText(*remote, "host");
    in.remote_device = OptText(*remote, "device");
    in.remote_port = OptInt(*remote, "port");
  }
  in.rail = OptText(p, "rail");
  in.not_run = OptText(p, "not_run");

  const json& s = p["summary"];
  in.sent = *OptInt(s, "sent");
  in.received = *OptInt(s, "received");
  in.lost = *OptInt(s, "lost");
  in.loss_ratio = OptReal(s, "loss_ratio");
  const Stats rtt = ReadStats(Field(s, "rtt_us"));
  in.rtt_count = rtt.count;
  in.rtt_min = rtt.min, in.rtt_avg = rtt.avg, in.rtt_p50 = rtt.p50, in.rtt_p90 = rtt.p90;
  in.rtt_p99 = rtt.p99, in.rtt_p999 = rtt.p999, in.rtt_max = rtt.max;
  const Stats net = ReadStats(Field(s, "network_us"));
  const Stats resp = ReadStats(Field(s, "responder_us"));
  const Stats read = ReadStats(Field(s, "read_us"));
  in.network_p50 = net.p50, in.network_p99 = net.p99;
  in.responder_p50 = resp.p50, in.responder_p99 = resp.p99;
  in.read_p50 = read.p50, in.read_p99 = read.p99;

  const json* errors = Field(p, "errors");
  const json* by_status = Field(s, "errors_by_status");
  const bool counted = by_status && !by_status->empty();
  if (errors)
    for (const json& e : *errors) {
      WcErrorInput w;
      w.status = *OptInt(e, "status");
      w.status_name = ProbeErrorStatusName(e);
      w.vendor_err = OptInt(e, "vendor_err");
      w.opcode = OptText(e, "opcode");
      w.wall_ms = OptReal(e, "wall_ms");
      w.after_ms = OptReal(e, "after_ms");
      w.explanation = OptText(e, "explanation");
      if (!counted) ++in.error_counts[w.status_name];
      if (!in.first_explanation.count(w.status_name)) in.first_explanation[w.status_name] = w.explanation.value_or("");
      in.errors.push_back(std::move(w));
    }
  in.has_errors = !in.errors.empty();
  if (by_status)
    for (const auto& [k, v] : by_status->items()) {
      const int64_t n = v.get<int64_t>();
      in.error_counts[StatusKeyName(k)] += n;
      in.has_errors = in.has_errors || n > 0;
    }
  json counts = json::object();
  for (const auto& [name, n] : in.error_counts) {
    in.error_count += n;
    counts[name] = n;
  }
  in.errors_by_status_json = counts.dump();
  return in;
}

}  // namespace

std::vector<ProbeInput> ExtractProbes(const json& report) {
  std::vector<ProbeInput> out;
  const json* probes = Field(report, "probes");
  if (!probes) return out;
  out.reserve(probes->size());
  for (const json& p : *probes) out.push_back(Extract(p));
  return out;
}

}  // namespace rdmascope::collector
