#include "collector/core/probe_input.h"

#include <string_view>
#include <unordered_set>

#include "collector/core/json_view.h"
#include "collector/core/probe_error_name.h"
#include "collector/core/sat_int.h"
#include "collector/core/simd_view.h"

namespace rdmascope::collector {

namespace {

struct Stats {
  std::optional<int64_t> count;
  std::optional<double> min, avg, p50, p90, p99, p999, max;
};

// One pass over a latency object; a count of 0 leaves every quantile absent.
template <class V>
Stats ReadStats(const V& o) {
  Stats s;
  o.EachMember([&s](std::string_view k, const V& v) {
    if (!IsNumber(v)) return true;
    if (k == "count") {
      s.count = SaturatedInt64Of(v);
      return true;
    }
    const double d = v.f64();
    if (k == "min") s.min = d;
    else if (k == "avg") s.avg = d;
    else if (k == "p50") s.p50 = d;
    else if (k == "p90") s.p90 = d;
    else if (k == "p99") s.p99 = d;
    else if (k == "p999") s.p999 = d;
    else if (k == "max") s.max = d;
    return true;
  });
  if (s.count && *s.count == 0) s = Stats{s.count, {}, {}, {}, {}, {}, {}, {}};
  return s;
}

template <class V>
ProbeInput Extract(const V& p) {
  ProbeInput in;
  in.target = std::string(p.member("target").str());
  in.transport = std::string(p.member("transport").str());
  in.interval_start = OptIntMember(p, "interval_start_ms").value_or(0);
  in.interval_end = OptIntMember(p, "interval_end_ms").value_or(0);
  if (const V local = PresentMember(p, "local"); local.kind() != JsonKind::kAbsent) {
    in.local_device = OptTextMember(local, "device");
    in.local_port = OptIntMember(local, "port");
  }
  if (const V remote = PresentMember(p, "remote"); remote.kind() != JsonKind::kAbsent) {
    in.remote_host = OptTextMember(remote, "host");
    in.remote_device = OptTextMember(remote, "device");
    in.remote_port = OptIntMember(remote, "port");
  }
  in.rail = OptTextMember(p, "rail");
  in.not_run = OptTextMember(p, "not_run");

  const V s = p.member("summary");
  in.sent = OptIntMember(s, "sent").value_or(0);
  in.received = OptIntMember(s, "received").value_or(0);
  in.lost = OptIntMember(s, "lost").value_or(0);
  in.loss_ratio = OptRealMember(s, "loss_ratio");
  const Stats rtt = ReadStats(PresentMember(s, "rtt_us"));
  in.rtt_count = rtt.count;
  in.rtt_min = rtt.min, in.rtt_avg = rtt.avg, in.rtt_p50 = rtt.p50, in.rtt_p90 = rtt.p90;
  in.rtt_p99 = rtt.p99, in.rtt_p999 = rtt.p999, in.rtt_max = rtt.max;
  const Stats net = ReadStats(PresentMember(s, "network_us"));
  const Stats resp = ReadStats(PresentMember(s, "responder_us"));
  const Stats read = ReadStats(PresentMember(s, "read_us"));
  in.network_p50 = net.p50, in.network_p99 = net.p99;
  in.responder_p50 = resp.p50, in.responder_p99 = resp.p99;
  in.read_p50 = read.p50, in.read_p99 = read.p99;

  const V by_status = PresentMember(s, "errors_by_status");
  const bool counted = by_status.size() > 0;
  PresentMember(p, "errors").EachElement([&](const V& e) {
    WcErrorInput w;
    w.status = OptIntMember(e, "status").value_or(0);
    w.status_name = ProbeErrorStatusNameOf(e);
    w.vendor_err = OptIntMember(e, "vendor_err");
    w.opcode = OptTextMember(e, "opcode");
    w.wall_ms = OptRealMember(e, "wall_ms");
    w.after_ms = OptRealMember(e, "after_ms");
    w.explanation = OptTextMember(e, "explanation");
    if (!counted) ++in.error_counts[w.status_name];
    if (!in.first_explanation.count(w.status_name)) in.first_explanation[w.status_name] = w.explanation.value_or("");
    in.errors.push_back(std::move(w));
    return true;
  });
  in.has_errors = !in.errors.empty();
  by_status.EachMember([&](std::string_view k, const V& v) {
    const int64_t n = SaturatedInt64Of(v);
    int64_t& count = in.error_counts[StatusKeyName(std::string(k))];
    count = SatAdd(count, n);
    in.has_errors = in.has_errors || n > 0;
    return true;
  });
  if (in.error_counts.empty()) {
    in.errors_by_status_json = "{}";
  } else {
    nlohmann::json counts = nlohmann::json::object();
    for (const auto& [name, n] : in.error_counts) {
      in.error_count = SatAdd(in.error_count, n);
      counts[name] = n;
    }
    in.errors_by_status_json = counts.dump();
  }
  return in;
}

template <class V>
std::vector<ProbeInput> ExtractAll(const V& report) {
  std::vector<ProbeInput> out;
  const V probes = PresentMember(report, "probes");
  out.reserve(probes.size());
  probes.EachElement([&out](const V& p) {
    out.push_back(Extract(p));
    return true;
  });
  return out;
}

}  // namespace

std::vector<ProbeInput> ExtractProbes(const nlohmann::json& report) { return ExtractAll(NlohmannView(report)); }

std::vector<ProbeInput> ExtractProbesOfSimd(const SimdView& report) { return ExtractAll(report); }

size_t DistinctTargets(const std::vector<ProbeInput>& probes) {
  std::unordered_set<std::string_view> names;
  names.reserve(probes.size());
  for (const ProbeInput& p : probes) names.insert(p.target);
  return names.size();
}

}  // namespace rdmascope::collector
