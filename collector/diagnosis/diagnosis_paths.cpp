// Path classification and evidence for the diagnosis (see diagnosis.h).
#include "collector/diagnosis/diagnosis_paths.h"

#include <algorithm>
#include <cmath>

namespace rdmascope::collector::diagnosis {
namespace {

using nlohmann::json;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double LossOf(const PathSummary& p) {
  if (p.sent <= 0) return p.received > 0 ? 0 : 1;
  return std::clamp(static_cast<double>(p.sent - p.received) / static_cast<double>(p.sent), 0.0, 1.0);
}

bool Any(const PathSummary& p, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    auto it = p.errors_by_status.find(n);
    if (it != p.errors_by_status.end() && it->second > 0) return true;
  }
  return false;
}

int Rank(PathKind k) { return static_cast<int>(k); }

}  // namespace

const char* KindName(PathKind k) {
  switch (k) {
    case PathKind::kGood: return "good";
    case PathKind::kLatency: return "latency";
    case PathKind::kLoss: return "loss";
    case PathKind::kUnreachable: return "unreachable";
    case PathKind::kRnr: return "rnr";
    case PathKind::kAccess: return "access";
  }
  return "unknown";
}

std::map<std::string, LatencyLimit> LatencyLimits(const std::vector<PathSummary>& paths, const Options& o) {
  std::map<std::string, std::vector<double>> p50s, mins;
  for (const PathSummary& p : paths) {
    if (p.not_run) continue;
    if (p.rtt_p50_us) p50s[p.transport].push_back(*p.rtt_p50_us);
    if (p.rtt_min_us) mins[p.transport].push_back(*p.rtt_min_us);
  }
  auto limit = [&](const std::vector<double>& v) {
    double m = Median(v);
    return std::max(m * o.latency_factor, m + o.latency_floor_us);
  };
  std::map<std::string, LatencyLimit> out;
  for (const auto& [t, v] : p50s) out[t].p50_us = limit(v);
  for (const auto& [t, v] : mins) out[t].min_us = limit(v);
  return out;
}

PathKind Classify(const PathSummary& p, const std::map<std::string, LatencyLimit>& limits, const Options& o) {
  if (p.not_run) return PathKind::kGood;
  int64_t errors = 0;
  for (const auto& [name, n] : p.errors_by_status) errors += n;
  if (p.sent <= 0 && errors == 0) return PathKind::kGood;  // measured nothing
  if (Any(p, {"REM_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_OP_ERR", "REM_INV_RD_REQ_ERR"})) return PathKind::kAccess;
  if (Any(p, {"RNR_RETRY_EXC_ERR"})) return PathKind::kRnr;
  if (p.received <= 0) return PathKind::kUnreachable;
  double loss = LossOf(p);
  if (p.sent > 0) loss = std::max(loss, static_cast<double>(errors) / static_cast<double>(p.sent));
  if (loss >= o.bad_loss_ratio) return PathKind::kLoss;
  auto it = limits.find(p.transport);
  if (it == limits.end()) return PathKind::kGood;
  const LatencyLimit& l = it->second;
  if (p.rtt_p50_us && l.p50_us > 0 && *p.rtt_p50_us >= l.p50_us) return PathKind::kLatency;
  if (p.rtt_min_us && l.min_us > 0 && *p.rtt_min_us >= l.min_us) return PathKind::kLatency;
  return PathKind::kGood;
}

void AddPathEvidence(const Fleet& f, const std::vector<size_t>& bad, json evidence, const Options& o, Verdict* v) {
  const auto& paths = f.input->paths;
  std::map<std::string, int64_t> statuses;
  std::vector<double> loss, p50, mins;
  for (size_t i : bad) {
    const PathSummary& p = paths[i];
    for (const auto& [name, n] : p.errors_by_status)
      if (n > 0) statuses[name] += n;
    loss.push_back(LossOf(p));
    if (p.rtt_p50_us) p50.push_back(*p.rtt_p50_us);
    if (p.rtt_min_us) mins.push_back(*p.rtt_min_us);
    if (v->paths.size() < o.max_paths_cited)
      v->paths.push_back({{"src", p.src}, {"dst", p.dst}, {"rail", p.rail}, {"transport", p.transport},
                          {"kind", KindName(f.kind[i])}});
  }
  evidence["what"] = "paths";
  evidence["bad"] = bad.size();
  if (!statuses.empty()) evidence["wc_status"] = statuses;
  evidence["median_loss_ratio"] = std::round(Median(loss) * 1000) / 1000;
  auto limit = bad.empty() ? f.latency_limit.end() : f.latency_limit.find(paths[bad.front()].transport);
  if (!p50.empty()) {
    evidence["median_p50_us"] = std::round(Median(p50));
    if (limit != f.latency_limit.end() && limit->second.p50_us > 0)
      evidence["latency_limit_us"] = std::round(limit->second.p50_us);
  }
  if (!mins.empty()) {
    evidence["median_min_us"] = std::round(Median(mins));
    if (limit != f.latency_limit.end() && limit->second.min_us > 0)
      evidence["min_limit_us"] = std::round(limit->second.min_us);
  }
  v->evidence.push_back(std::move(evidence));
}

void AddCounterEvidence(const Fleet& f, const std::string& node, const std::string& device, Verdict* v) {
  for (const PortFacts& p : f.input->ports) {
    if (p.node != node || (!device.empty() && p.device != device)) continue;
    for (const CounterDelta& c : p.moved)
      v->evidence.push_back({{"what", "counter"}, {"node", p.node}, {"device", p.device}, {"port", p.port},
                             {"counter", c.name}, {"delta", c.delta}});
    for (const CounterDelta& c : p.switch_moved)
      v->evidence.push_back({{"what", "switch_port"}, {"switch_guid", p.switch_guid},
                             {"switch", p.switch_description}, {"port", p.switch_port},
                             {"cabled_to", p.node + "/" + p.device + "/" + std::to_string(p.port)},
                             {"counter", c.name}, {"delta", c.delta}});
  }
}

PathKind DominantKind(const Fleet& f, const std::vector<size_t>& paths) {
  std::map<PathKind, size_t> n;
  for (size_t i : paths) ++n[f.kind[i]];
  PathKind best = PathKind::kGood;
  size_t most = 0;
  for (const auto& [k, c] : n)
    if (c > most || (c == most && Rank(k) > Rank(best))) best = k, most = c;
  return best;
}

void Finish(const Fleet& f, const std::vector<size_t>& bad, const Options& o, Verdict* v) {
  if (v->kind.empty()) v->kind = KindName(DominantKind(f, bad));
  std::vector<double> loss;
  for (size_t i : bad) {
    const PathSummary& p = f.input->paths[i];
    if (v->first_bad_ms == 0 || p.interval_start_ms < v->first_bad_ms) v->first_bad_ms = p.interval_start_ms;
    loss.push_back(LossOf(p));
  }
  const std::string& k = v->kind;
  bool critical = k == "unreachable" || k == "port_down" || k == "rnr" || k == "access" ||
                  (k == "loss" && Median(loss) >= o.critical_loss_ratio);
  v->severity = critical ? "critical" : "warning";
  v->confidence = std::round(std::clamp(v->confidence, 0.0, 1.0) * 100) / 100;
}

}  // namespace rdmascope::collector::diagnosis
